/** A streaming NDJSON decoder: chunks of any size in, classified messages out, never a throw. */
import { type Classified, classify } from './classify.js';
import { JsonRpcErrorCode } from './error-codes.js';
import { invalidArgument } from './local-errors.js';
import { isUtf8 } from './utf8-check.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** A frame longer than the limit: the stream cannot be resynchronised, so the caller closes it. */
interface OversizedFrame {
  kind: 'oversized';
  limit: number;
}

export type DecodedFrame = Classified | OversizedFrame;

export interface FrameDecoderOptions {
  /** Largest accepted line in bytes, excluding the `\n` or `\r\n` terminator. Default 16 MiB. */
  maxFrameBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream on `\n` (a `\r` before it is dropped), skips blank lines, and classifies
 * each line. Bytes are only decoded once a line is complete, so chunks may split anywhere,
 * including inside a UTF-8 character. At most `maxFrameBytes + 1` bytes of an unfinished line are
 * held; past that the decoder reports one `oversized` frame and ignores everything after it.
 */
export class FrameDecoder {
  readonly maxFrameBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  constructor(options: FrameDecoderOptions = {}) {
    const limit = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw invalidArgument(`maxFrameBytes must be a positive integer, got ${String(limit)}`);
    }
    this.maxFrameBytes = limit;
  }

  /** True once an oversized frame was seen or close() was called; all further input is then ignored. */
  get closed(): boolean {
    return this.failed;
  }

  /**
   * Stops decoding: releases the unfinished line held back and ignores all further input. A reader
   * that stops reading calls it, so an unfinished line that can never complete is not kept alive
   * for as long as the decoder is.
   */
  close(): void {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Bytes of an unfinished line held back for the next chunk. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Feeds one chunk; returns the frames it completed, in order. */
  push(chunk: Uint8Array | string): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    if (this.failed) return out;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : toBuffer(chunk);
    if (bytes.length === 0) return out;
    let start = 0;
    if (this.pendingBytes > 0) {
      const newline = bytes.indexOf(NEWLINE);
      if (newline === -1) {
        this.hold(bytes, 0, out);
        return out;
      }
      if (this.completedTooLong(bytes, newline)) {
        this.fail(out);
        return out;
      }
      this.pending.push(bytes.subarray(0, newline));
      const line = this.takePending();
      if (!this.emitBytes(line, 0, line.length, out)) return out;
      start = newline + 1;
    }
    const last = bytes.lastIndexOf(NEWLINE);
    if (last >= start) {
      if (!this.emitRegion(bytes, start, last, out)) return out;
      start = last + 1;
    }
    if (start < bytes.length) this.hold(bytes, start, out);
    return out;
  }

  /** Flushes a final line that had no terminator (a peer may end its stream without one). */
  end(): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    if (this.failed || this.pendingBytes === 0) return out;
    const line = this.takePending();
    this.emitBytes(line, 0, line.length, out);
    return out;
  }

  /** Complete lines in bytes[start, end), `end` being the last `\n`. Returns false once failed. */
  private emitRegion(bytes: Buffer, start: number, end: number, out: DecodedFrame[]): boolean {
    // Fast path: a region within the limit cannot hold an oversized line, so decode it in one go.
    if (end - start <= this.maxFrameBytes && isUtf8(bytes.subarray(start, end))) {
      const text = bytes.toString('utf8', start, end);
      let from = 0;
      let newline = text.indexOf('\n');
      while (newline !== -1) {
        emitText(text.slice(from, newline), out);
        from = newline + 1;
        newline = text.indexOf('\n', from);
      }
      emitText(text.slice(from), out);
      return true;
    }
    let from = start;
    while (from <= end) {
      const newline = bytes.indexOf(NEWLINE, from);
      if (!this.emitBytes(bytes, from, newline, out)) return false;
      from = newline + 1;
    }
    return true;
  }

  /** One line in bytes[start, end), terminator excluded. Returns false once failed. */
  private emitBytes(bytes: Buffer, start: number, end: number, out: DecodedFrame[]): boolean {
    const contentEnd = end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
    if (contentEnd - start > this.maxFrameBytes) {
      this.fail(out);
      return false;
    }
    if (!isUtf8(bytes.subarray(start, end))) {
      out.push({
        kind: 'invalid',
        code: JsonRpcErrorCode.ParseError,
        reason: 'Parse error: not valid UTF-8',
        id: null,
      });
      return true;
    }
    emitText(bytes.toString('utf8', start, end), out);
    return true;
  }

  /** Whether the held line, completed by bytes[0, newline), passes the limit (checked before joining). */
  private completedTooLong(bytes: Buffer, newline: number): boolean {
    const total = this.pendingBytes + newline;
    const lastByte = newline > 0 ? bytes[newline - 1] : this.pending.at(-1)?.at(-1);
    return (lastByte === CARRIAGE_RETURN ? total - 1 : total) > this.maxFrameBytes;
  }

  /** Keeps bytes[start..] for the next chunk, unless that would pass the limit. */
  private hold(bytes: Buffer, start: number, out: DecodedFrame[]): void {
    const total = this.pendingBytes + (bytes.length - start);
    // One byte of slack: a line of exactly the limit may still be waiting for the `\n` after its `\r`.
    const lastByte = bytes.length > start ? bytes[bytes.length - 1] : this.pending.at(-1)?.at(-1);
    const awaitingNewline = total === this.maxFrameBytes + 1 && lastByte === CARRIAGE_RETURN;
    if (total > this.maxFrameBytes && !awaitingNewline) {
      this.fail(out);
      return;
    }
    // Copy: the caller may reuse its chunk buffer.
    const rest = Buffer.from(bytes.subarray(start));
    this.pending.push(rest);
    this.pendingBytes = total;
  }

  private takePending(): Buffer {
    const joined = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return joined;
  }

  private fail(out: DecodedFrame[]): void {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
    out.push({ kind: 'oversized', limit: this.maxFrameBytes });
  }
}

function toBuffer(chunk: Uint8Array): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk.byteLength === 0) return Buffer.alloc(0);
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Drops a trailing `\r`; blank lines (JSON whitespace only) are skipped. */
function emitText(line: string, out: DecodedFrame[]): void {
  const text = line.charCodeAt(line.length - 1) === CARRIAGE_RETURN ? line.slice(0, -1) : line;
  if (isBlank(text)) return;
  out.push(decodeLine(text));
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // JSON whitespace: space, tab, CR (LF cannot occur inside a line).
    if (c !== 0x20 && c !== 0x09 && c !== CARRIAGE_RETURN) return false;
  }
  return true;
}

/** Parses and classifies one line; a line that is not JSON is a -32700 verdict. Never throws. */
export function decodeLine(line: string): Classified {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      kind: 'invalid',
      code: JsonRpcErrorCode.ParseError,
      reason: 'Parse error: not valid JSON',
      id: null,
    };
  }
  return classify(value);
}
