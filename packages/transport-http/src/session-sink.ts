/** A legacy session's push destination: forwards to the session's current GET SSE stream. */
import type { JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';
import type { SseStream } from './sse-stream.js';

/**
 * Registered once in the subscription registry for the whole session, so a GET stream that
 * reconnects keeps the session's subscriptions. With no GET stream open, pushes are dropped
 * (legacy clients learn nothing they did not open a stream for; no unbounded buffering).
 */
export class SessionSink implements PushWriter {
  readonly id: string;
  #stream: SseStream | undefined;
  #closed = false;

  constructor(id: string) {
    this.id = id;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get stream(): SseStream | undefined {
    return this.#stream;
  }

  attach(stream: SseStream): void {
    this.#stream = stream;
    stream.onClose(() => {
      if (this.#stream === stream) this.#stream = undefined;
    });
  }

  write(message: JsonRpcMessage): boolean {
    if (this.#closed) return false;
    this.#stream?.write(message);
    return true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stream?.end();
    this.#stream = undefined;
  }
}
