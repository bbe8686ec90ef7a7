/** The writer side of one resumable stream: numbers its events and records them in the event store. */
import type { JsonRpcMessage, Logger } from '@agentd/rpc-frame';
import { errorFields } from '@agentd/rpc-frame';
import { type EventStore, eventIdOf, mintStreamId, type StreamOwner } from './event-store.js';

/**
 * Appends are not awaited: the live connection is written at once, and a store keeps one
 * writer's calls in order (the in-memory store runs them synchronously, Redis pipelines them).
 * A failed append is logged once per stream; the live connection is unaffected.
 */
export class StreamRecorder {
  readonly streamId: string;
  readonly #store: EventStore;
  readonly #logger: Logger;
  readonly #owner: StreamOwner;
  /** The stream ids its session has in the store, deleted with the session (see session-store.ts). */
  readonly #sessionStreams: Set<string> | undefined;
  #next = 0;
  #warned = false;

  constructor(store: EventStore, owner: StreamOwner, logger: Logger, sessionStreams?: Set<string>) {
    this.streamId = mintStreamId();
    this.#store = store;
    this.#owner = owner;
    this.#logger = logger;
    this.#sessionStreams = sessionStreams;
  }

  /** Records the next event (no message: priming, or the end marker) and returns its SSE id. */
  record(message?: JsonRpcMessage): string {
    const seq = this.#next++;
    // Registered with the first event: a request answered as plain JSON never touches the store.
    if (seq === 0) {
      this.#sessionStreams?.add(this.streamId);
      this.#store.createStream(this.streamId, this.#owner).catch((error: unknown) => this.#failed(error));
    }
    this.#store
      .append(this.streamId, message === undefined ? { seq } : { seq, message })
      .catch((error: unknown) => this.#failed(error));
    return eventIdOf(this.streamId, seq);
  }

  /**
   * The stream ended on its live connection: a request stream's client has its response, so
   * the store need not keep it (a GET stream is kept: its client reconnects after shutdown).
   */
  delivered(): void {
    if (this.#next === 0 || this.#owner.kind !== 'request') return;
    this.#sessionStreams?.delete(this.streamId);
    this.#store.delete(this.streamId).catch((error: unknown) => this.#failed(error));
  }

  #failed(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#logger.warn('sse event store write failed; this stream cannot be fully resumed', {
      streamId: this.streamId,
      ...errorFields(error),
    });
  }
}
