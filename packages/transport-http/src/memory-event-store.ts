/** The default event store: this replica's own streams in memory, bounded in count, length and age. */
import type { EventStore, StoredEvent, StreamOwner } from './event-store.js';
import { invalidOption } from './local-errors.js';

export interface MemoryEventStoreOptions {
  /** Most streams kept; past it the least recently active stream is dropped. Default 10,000. */
  maxStreams?: number;
  /** Most events kept per stream; past it the oldest are dropped (a resume from before them fails). Default 1,000. */
  maxEventsPerStream?: number;
  /** A stream with no event or reader for this long is dropped. Default 10 min. */
  ttlMs?: number;
}

interface Entry {
  readonly owner: StreamOwner;
  readonly events: StoredEvent[];
  /** Highest seq dropped by trimming (-1: none). */
  trimmed: number;
  touched: number;
  readonly waiters: Set<() => void>;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw invalidOption(`${name} must be a positive integer`);
  return value;
}

export class MemoryEventStore implements EventStore {
  // Insertion order is activity order: a touched stream is moved to the end.
  readonly #streams = new Map<string, Entry>();
  readonly #maxStreams: number;
  readonly #maxEvents: number;
  readonly #ttlMs: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxStreams = positiveInteger('maxStreams', options.maxStreams, 10_000);
    this.#maxEvents = positiveInteger('maxEventsPerStream', options.maxEventsPerStream, 1_000);
    this.#ttlMs = positiveInteger('ttlMs', options.ttlMs, 10 * 60_000);
  }

  /** Streams held right now. */
  get size(): number {
    return this.#streams.size;
  }

  async createStream(streamId: string, owner: StreamOwner): Promise<void> {
    const now = Date.now();
    for (const [id, entry] of this.#streams) {
      if (this.#streams.size < this.#maxStreams && entry.touched + this.#ttlMs > now) break;
      this.#drop(id, entry);
    }
    this.#streams.set(streamId, { owner, events: [], trimmed: -1, touched: now, waiters: new Set() });
  }

  async append(streamId: string, event: StoredEvent): Promise<void> {
    const entry = this.#live(streamId);
    if (entry === undefined) return;
    entry.events.push(event);
    if (entry.events.length > this.#maxEvents) entry.trimmed = (entry.events.shift() as StoredEvent).seq;
    this.#touch(streamId, entry);
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const wake of waiters) wake();
  }

  async owner(streamId: string): Promise<StreamOwner | undefined> {
    return this.#live(streamId)?.owner;
  }

  async read(
    streamId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): Promise<readonly StoredEvent[] | 'gone'> {
    for (;;) {
      const entry = this.#live(streamId);
      if (entry === undefined || entry.trimmed > afterSeq) return 'gone';
      this.#touch(streamId, entry);
      const events = entry.events;
      let from = events.length;
      while (from > 0 && (events[from - 1] as StoredEvent).seq > afterSeq) from--;
      if (from < events.length) return events.slice(from);
      if (signal.aborted) return [];
      await new Promise<void>((resolve) => {
        const wake = () => {
          entry.waiters.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        entry.waiters.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  #live(streamId: string): Entry | undefined {
    const entry = this.#streams.get(streamId);
    if (entry === undefined) return undefined;
    // A stream someone is waiting on is alive however quiet it is.
    if (entry.waiters.size > 0 || entry.touched + this.#ttlMs > Date.now()) return entry;
    this.#drop(streamId, entry);
    return undefined;
  }

  #touch(streamId: string, entry: Entry): void {
    entry.touched = Date.now();
    this.#streams.delete(streamId);
    this.#streams.set(streamId, entry);
  }

  /** Drops a stream; its waiting readers wake and find it gone. */
  #drop(streamId: string, entry: Entry): void {
    this.#streams.delete(streamId);
    for (const wake of [...entry.waiters]) wake();
  }
}
