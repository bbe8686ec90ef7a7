/** One SSE response: started lazily, keep-alive comments, bounded buffer, a PushWriter. */
import type { ServerResponse } from 'node:http';
import { encodeSseComment, encodeSseMessage, type JsonRpcMessage } from '@agentd/rpc-frame';
import type { HttpPushWriter } from './core-port.js';
import { encodeOrInternalError } from './safe-encode.js';

export interface SseOptions {
  /** Interval of `:` comment keep-alives (default 15 s). */
  readonly keepAliveMs: number;
  /** Unsent bytes allowed before a reader that does not read is dropped. */
  readonly maxBufferedBytes: number;
}

const KEEP_ALIVE = encodeSseComment();

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/**
 * The stream starts (200 + SSE headers) on the first write or `start()`, so a request that
 * sends nothing before its result can still be answered as plain JSON.
 */
export class SseStream implements HttpPushWriter {
  readonly id: string;
  readonly #res: ServerResponse;
  readonly #options: SseOptions;
  readonly #extraHeaders: Record<string, string> | undefined;
  #started = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #onClose: (() => void)[] = [];

  constructor(res: ServerResponse, id: string, options: SseOptions, extraHeaders?: Record<string, string>) {
    this.id = id;
    this.#res = res;
    this.#options = options;
    this.#extraHeaders = extraHeaders;
    res.once('close', () => this.#finish());
  }

  get closed(): boolean {
    return this.#closed;
  }

  get started(): boolean {
    return this.#started;
  }

  /** Called once when the response closes for any reason (answered, client gone, dropped). */
  onClose(listener: () => void): void {
    this.#onClose.push(listener);
  }

  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    const res = this.#res;
    res.writeHead(
      200,
      this.#extraHeaders === undefined ? SSE_HEADERS : { ...SSE_HEADERS, ...this.#extraHeaders },
    );
    res.flushHeaders();
    this.#timer = setInterval(() => this.#push(KEEP_ALIVE), this.#options.keepAliveMs);
    this.#timer.unref();
  }

  write(message: JsonRpcMessage): boolean {
    if (this.#closed) return false;
    if (!this.#started) this.start();
    return this.#push(encodeOrInternalError(message, (value) => encodeSseMessage(value)));
  }

  /** Writes the final message (if any) and ends the response gracefully. */
  end(message?: JsonRpcMessage): void {
    if (this.#closed) return;
    if (message !== undefined) this.write(message);
    if (this.#closed) return;
    if (!this.#started) this.start();
    this.#closed = true;
    this.#stopTimer();
    this.#res.end();
  }

  /** PushWriter.close: ends the stream; a stream dropped for overflow is cut at once. */
  close(reason?: string): void {
    if (this.#closed) return;
    if (reason === 'overflow') {
      this.#closed = true;
      this.#stopTimer();
      this.#res.destroy();
      return;
    }
    this.end();
  }

  #push(text: string): boolean {
    if (this.#closed) return false;
    this.#res.write(text);
    if (this.#res.writableLength > this.#options.maxBufferedBytes) {
      this.close('overflow');
      return false;
    }
    return true;
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #finish(): void {
    this.#closed = true;
    this.#stopTimer();
    const listeners = this.#onClose;
    this.#onClose = [];
    for (const listener of listeners) listener();
  }
}
