/** A streaming NDJSON decoder: chunks of any size in, classified messages out, never a throw. */
import { type Classified, classify } from './classify.js';
import { ErrorCode } from './error-codes.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** A frame longer than the limit: the stream cannot be resynchronised, so the caller closes it. */
export interface OversizedFrame {
  kind: 'oversized';
  limit: number;
}

export type DecodedFrame = Classified | OversizedFrame;

export interface FrameDecoderOptions {
  /** Largest accepted line in bytes, excluding the terminator. Default 16 MiB. */
  maxFrameBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class FrameDecoder {
  readonly maxFrameBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** True once an oversized frame was seen; the decoder then ignores all further input. */
  get closed(): boolean {
    return this.failed;
  }

  /** Bytes of an unfinished line held back for the next chunk. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  push(chunk: Uint8Array | string): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    if (this.failed) return out;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : toBuffer(chunk);
    let start = 0;
    let newline = bytes.indexOf(NEWLINE, start);
    while (newline !== -1) {
      if (this.pendingBytes + (newline - start) > this.maxFrameBytes) return this.fail(out);
      const line = this.takeLine(bytes, start, newline);
      if (line !== undefined) out.push(decodeLine(line));
      start = newline + 1;
      newline = bytes.indexOf(NEWLINE, start);
    }
    if (start < bytes.length) {
      if (this.pendingBytes + (bytes.length - start) > this.maxFrameBytes) return this.fail(out);
      // Copy: the caller may reuse its chunk buffer.
      const rest = Buffer.from(bytes.subarray(start));
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return out;
  }

  /** Flushes a final line that had no terminator (a peer may end its stream without one). */
  end(): DecodedFrame[] {
    if (this.failed || this.pendingBytes === 0) return [];
    const line = this.joinPending(Buffer.alloc(0), 0, 0);
    const text = trimLine(line);
    return text === undefined ? [] : [decodeLine(text)];
  }

  private takeLine(bytes: Buffer, start: number, end: number): string | undefined {
    if (this.pendingBytes === 0) return trimLine(bytes.subarray(start, end));
    return trimLine(this.joinPending(bytes, start, end));
  }

  private joinPending(bytes: Buffer, start: number, end: number): Buffer {
    if (end > start) this.pending.push(bytes.subarray(start, end));
    const joined = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return joined;
  }

  private fail(out: DecodedFrame[]): DecodedFrame[] {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
    out.push({ kind: 'oversized', limit: this.maxFrameBytes });
    return out;
  }
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Drops a trailing `\r`; blank (whitespace-only) lines yield undefined and are skipped. */
function trimLine(line: Buffer): string | undefined {
  let end = line.length;
  if (end > 0 && line[end - 1] === CARRIAGE_RETURN) end -= 1;
  if (end === 0) return undefined;
  const text = line.toString('utf8', 0, end);
  return isBlank(text) ? undefined : text;
}

function isBlank(text: string): boolean {
  // Fast path: a JSON message starts with `{` or `[`.
  const first = text.charCodeAt(0);
  if (first === 0x7b || first === 0x5b) return false;
  return text.trim().length === 0;
}

/** Parses and classifies one line; a line that is not JSON is a -32700 verdict. */
export function decodeLine(line: string): Classified {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', code: ErrorCode.ParseError, reason: 'Parse error: not valid JSON', id: null };
  }
  return classify(value);
}
