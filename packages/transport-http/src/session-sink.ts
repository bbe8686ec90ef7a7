/** A legacy session's push destination: forwards to the session's current GET SSE stream. */
import type { JsonRpcMessage } from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';
import type { SseStream } from './sse-stream.js';
import type { StreamRecorder } from './stream-recorder.js';

/**
 * Registered once in the subscription registry for the whole session, so a GET stream that
 * reconnects keeps the session's subscriptions. With no GET stream open, pushes are dropped
 * (legacy clients learn nothing they did not open a stream for; no unbounded buffering), unless
 * the last GET stream was resumable: then they are recorded (in the bounded event store) for
 * the client that resumes it with `Last-Event-ID`.
 */
export class SessionSink implements PushWriter {
  readonly id: string;
  #stream: SseStream | undefined;
  #recorder: StreamRecorder | undefined;
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

  /** The session's new GET stream; `recorder` (when resumable) outlives its connection. */
  attach(stream: SseStream, recorder?: StreamRecorder): void {
    this.#stream = stream;
    this.#recorder = recorder;
    stream.onClose(() => {
      if (this.#stream === stream) this.#stream = undefined;
    });
  }

  write(message: JsonRpcMessage): boolean {
    if (this.#closed) return false;
    if (this.#stream !== undefined) this.#stream.write(message);
    else this.#recorder?.record(message);
    return true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // The end marker tells a client resuming the GET stream (on any replica) that it is over.
    if (this.#stream !== undefined) this.#stream.end();
    else this.#recorder?.record();
    this.#stream = undefined;
    this.#recorder = undefined;
  }
}
