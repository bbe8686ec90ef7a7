/** One SSE response: started lazily, keep-alive comments, bounded buffer, a PushWriter. */
import { encodeSseComment, encodeSseMessage, type JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';
import type { HttpOutgoing } from './http-io.js';
import { encodeOrInternalError } from './safe-encode.js';
import { startInterval, stopTimer, type Timer } from './timer.js';

export interface SseOptions {
  /** Interval of `:` comment keep-alives (default 15 s). */
  readonly keepAliveMs: number;
  /** Unsent bytes allowed before a reader that does not read is dropped. */
  readonly maxBufferedBytes: number;
}

const KEEP_ALIVE = encodeSseComment();

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/**
 * The stream starts (200 + SSE headers) on the first write or `start()`, so a request that
 * sends nothing before its result can still be answered as plain JSON.
 */
export class SseStream implements PushWriter {
  readonly id: string;
  readonly #out: HttpOutgoing;
  readonly #options: SseOptions;
  readonly #extraHeaders: Record<string, string> | undefined;
  #started = false;
  #closed = false;
  #timer: Timer | undefined;
  #finished = false;
  #onClose: (() => void)[] = [];

  constructor(out: HttpOutgoing, id: string, options: SseOptions, extraHeaders?: Record<string, string>) {
    this.id = id;
    this.#out = out;
    this.#options = options;
    this.#extraHeaders = extraHeaders;
    out.onClose(() => this.#finish());
  }

  get closed(): boolean {
    return this.#closed;
  }

  get started(): boolean {
    return this.#started;
  }

  /** Called once when the response closes for any reason (answered, client gone, dropped). */
  onClose(listener: () => void): void {
    if (this.#finished) listener();
    else this.#onClose.push(listener);
  }

  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#out.open(
      200,
      this.#extraHeaders === undefined ? SSE_HEADERS : { ...SSE_HEADERS, ...this.#extraHeaders },
    );
    this.#timer = startInterval(() => this.#push(KEEP_ALIVE), this.#options.keepAliveMs);
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
    this.#out.end();
  }

  /** PushWriter.close: ends the stream; a stream dropped for overflow is cut at once. */
  close(reason?: string): void {
    if (this.#closed) return;
    if (reason === 'overflow') {
      this.#closed = true;
      this.#stopTimer();
      this.#out.destroy();
      return;
    }
    this.end();
  }

  #push(text: string): boolean {
    if (this.#closed) return false;
    this.#out.write(text);
    if (this.#out.bufferedBytes > this.#options.maxBufferedBytes) {
      this.close('overflow');
      return false;
    }
    return true;
  }

  #stopTimer(): void {
    stopTimer(this.#timer);
    this.#timer = undefined;
  }

  #finish(): void {
    this.#closed = true;
    this.#finished = true;
    this.#stopTimer();
    const listeners = this.#onClose;
    this.#onClose = [];
    for (const listener of listeners) listener();
  }
}
