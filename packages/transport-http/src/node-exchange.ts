/** A `node:http` request and response as the host-neutral HTTP exchange (no Web Request/Response built). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { endAfterDrain } from './drain-body.js';
import type { HeaderReader, HttpIncoming, HttpOutgoing } from './http-io.js';
import { httpError } from './local-errors.js';

/** How long the rest of an oversized body is discarded after the 413 before the connection is cut. */
const DRAIN_MS = 2_000;

class NodeHeaders implements HeaderReader {
  readonly #headers: IncomingMessage['headers'];
  constructor(headers: IncomingMessage['headers']) {
    this.#headers = headers;
  }
  get(name: string): string | null {
    const value = this.#headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

function parsedText(parsed: unknown, limit: number, exchange: { markTooLarge(limit: number): void }): string {
  const text =
    typeof parsed === 'string'
      ? parsed
      : parsed instanceof Uint8Array
        ? Buffer.from(parsed).toString('utf8')
        : JSON.stringify(parsed);
  if (Buffer.byteLength(text) > limit) {
    exchange.markTooLarge(limit);
    throw httpError('body_too_large', `body exceeds ${limit} bytes`);
  }
  return text;
}

export class NodeExchange implements HttpIncoming, HttpOutgoing {
  readonly method: string;
  readonly path: string;
  readonly headers: HeaderReader;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #secure: boolean;
  /** Set when the body was refused as too large: the answer then waits for the rest to drain. */
  #drainLimit: number | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, path: string, secure: boolean) {
    this.#req = req;
    this.#res = res;
    this.method = req.method ?? 'GET';
    this.path = path;
    this.headers = new NodeHeaders(req.headers);
    this.#secure = secure;
  }

  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  url(): string {
    const host = this.#req.headers.host ?? 'localhost';
    const target = (this.#req as { originalUrl?: string }).originalUrl ?? this.#req.url ?? '/';
    return `${this.#secure ? 'https' : 'http'}://${host}${target}`;
  }

  readText(limit: number): Promise<string> {
    const req = this.#req;
    const parsed = (req as { body?: unknown }).body;
    // A framework's body parser (e.g. express.json()) already consumed the stream.
    if (parsed !== undefined && req.readableEnded) return Promise.resolve(parsedText(parsed, limit, this));
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      this.#drainLimit = limit;
      return Promise.reject(httpError('body_too_large', `body of ${declared} bytes exceeds ${limit}`));
    }
    return new Promise((resolve, reject) => {
      let first: Buffer | undefined;
      let chunks: Buffer[] | undefined;
      let size = 0;
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          cleanup();
          this.#drainLimit = limit;
          reject(httpError('body_too_large', `body exceeds ${limit} bytes`));
          return;
        }
        if (first === undefined) {
          first = chunk;
          return;
        }
        if (chunks === undefined) chunks = [first];
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        const whole = chunks !== undefined ? Buffer.concat(chunks, size) : first;
        resolve(whole === undefined ? '' : whole.toString('utf8'));
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const cleanup = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
    });
  }

  markTooLarge(limit: number): void {
    this.#drainLimit = limit;
  }

  get sent(): boolean {
    return this.#res.headersSent || this.#res.destroyed;
  }

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    // The length first and the headers spread after it: a key added to a spread copy costs V8 a
    // hidden class per response.
    res.writeHead(
      status,
      body === undefined ? headers : { 'content-length': Buffer.byteLength(body), ...headers },
    );
    if (this.#drainLimit === undefined) {
      res.end(body);
      return;
    }
    if (body !== undefined) res.write(body);
    endAfterDrain(this.#req, res, { maxBytes: this.#drainLimit * 4, maxMs: DRAIN_MS });
  }

  open(status: number, headers: Readonly<Record<string, string>>): void {
    const res = this.#res;
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, headers);
    res.flushHeaders();
  }

  write(chunk: string): void {
    this.#res.write(chunk);
  }

  get bufferedBytes(): number {
    return this.#res.writableLength;
  }

  end(): void {
    this.#res.end();
  }

  destroy(): void {
    this.#res.destroy();
  }

  onClose(listener: () => void): void {
    if (this.#res.closed) listener();
    else this.#res.once('close', listener);
  }
}
