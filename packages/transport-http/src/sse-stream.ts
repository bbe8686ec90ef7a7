/** One SSE response: started lazily, keep-alive comments, bounded buffer, a PushWriter. */
import { encodeSseComment, encodeSseEvent, encodeSseMessage, type JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';
import type { HttpOutgoing } from './http-io.js';
import { encodeOrInternalError } from './safe-encode.js';
import type { StreamRecorder } from './stream-recorder.js';
import { startInterval, stopTimer, type Timer } from './timer.js';

export interface SseOptions {
  /** Interval of `:` comment keep-alives (default 15 s). */
  readonly keepAliveMs: number;
  /** Unsent bytes allowed before a reader that does not read is dropped. */
  readonly maxBufferedBytes: number;
  /** The `retry:` (ms) sent with the priming event of a resumable stream. */
  readonly retryMs: number;
}

const KEEP_ALIVE = encodeSseComment();

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/**
 * The stream starts (200 + SSE headers) on the first write or `start()`, so a request that
 * sends nothing before its result can still be answered as plain JSON. With a recorder the
 * stream is resumable (legacy era): it opens with a priming event (an id, `retry:`, empty
 * data), every event carries an id, and every event is recorded, also after the connection
 * closed (`disconnect()`, a client gone, an overflow), so a GET with `Last-Event-ID` gets it.
 */
export class SseStream implements PushWriter {
  readonly id: string;
  readonly #out: HttpOutgoing;
  readonly #options: SseOptions;
  readonly #extraHeaders: Record<string, string> | undefined;
  readonly #recorder: StreamRecorder | undefined;
  #started = false;
  #closed = false;
  #timer: Timer | undefined;
  #finished = false;
  #onClose: (() => void)[] = [];

  constructor(
    out: HttpOutgoing,
    id: string,
    options: SseOptions,
    extraHeaders?: Record<string, string>,
    recorder?: StreamRecorder,
  ) {
    this.id = id;
    this.#out = out;
    this.#options = options;
    this.#extraHeaders = extraHeaders;
    this.#recorder = recorder;
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

  /** Opens the response; a resumable stream primes it unless `prime` is false (nothing to resume). */
  start(prime = true): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#out.open(
      200,
      this.#extraHeaders === undefined
        ? SSE_HEADERS
        : {
            'content-type': SSE_HEADERS['content-type'],
            'cache-control': SSE_HEADERS['cache-control'],
            'x-accel-buffering': SSE_HEADERS['x-accel-buffering'],
            ...this.#extraHeaders,
          },
    );
    this.#timer = startInterval(() => this.#push(KEEP_ALIVE), this.#options.keepAliveMs);
    if (prime && this.#recorder !== undefined)
      this.#push(encodeSseEvent({ id: this.#recorder.record(), retry: this.#options.retryMs, data: '' }));
  }

  /** False when the message reached neither the client nor the event store. */
  write(message: JsonRpcMessage): boolean {
    const recorder = this.#recorder;
    if (recorder === undefined) {
      if (this.#closed) return false;
      if (!this.#started) this.start();
      return this.#push(encodeOrInternalError(message, (value) => encodeSseMessage(value)));
    }
    if (!this.#started && !this.#closed) this.start();
    // Never started (the client left before anything was sent): it holds no id to resume from.
    if (!this.#started) return false;
    const id = recorder.record(message);
    if (!this.#closed) this.#push(encodeOrInternalError(message, (value) => encodeSseMessage(value, id)));
    return true;
  }

  /**
   * Writes the final message (if any) and ends the response gracefully. A resumable stream whose
   * connection already closed records it (or, with none, its end) for the client that resumes.
   */
  end(message?: JsonRpcMessage): void {
    if (this.#closed) {
      if (this.#started && this.#recorder !== undefined) {
        if (message !== undefined) this.write(message);
        else this.#recorder.record();
      }
      return;
    }
    if (message !== undefined) this.write(message);
    else if (this.#started) this.#recorder?.record();
    if (this.#closed) return;
    if (!this.#started) this.start(false);
    this.#closed = true;
    this.#stopTimer();
    this.#out.end();
    this.#recorder?.delivered();
  }

  /** A resumed stream: re-sends a recorded event under its original id. */
  relay(id: string, message: JsonRpcMessage): boolean {
    if (this.#closed) return false;
    if (!this.#started) this.start();
    return this.#push(encodeOrInternalError(message, (value) => encodeSseMessage(value, id)));
  }

  /** A resumed stream: the `retry:` field alone (no event is dispatched for it). */
  advise(): void {
    if (!this.#started) this.start();
    this.#push(`retry: ${this.#options.retryMs}\n\n`);
  }

  /**
   * Closes the connection but not the stream (SEP-1699 polling): primes it first if need be;
   * later events are recorded for the client, which resumes with GET + `Last-Event-ID`.
   */
  disconnect(): void {
    if (this.#recorder === undefined || this.#closed) return;
    this.start();
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
