/** The default event store: this replica's own streams in memory, bounded in count, length, bytes and age. */
import type { EventStore, StoredEvent, StreamOwner } from './event-store.js';
import { invalidOption } from './local-errors.js';

export interface MemoryEventStoreOptions {
  /** Most streams kept; past it the least recently active stream is dropped. Default 10,000. */
  maxStreams?: number;
  /** Most events kept per stream; past it the oldest are dropped (a resume from before them fails). Default 1,000. */
  maxEventsPerStream?: number;
  /**
   * Most bytes (JSON text of the messages) kept in all; past it the least recently active
   * streams are dropped, and a stream larger than this alone loses its oldest events. Default 64 MiB.
   */
  maxBytes?: number;
  /** A stream with no event or reader for this long is dropped. Default 10 min. */
  ttlMs?: number;
}

interface Kept {
  readonly event: StoredEvent;
  readonly bytes: number;
}

interface Entry {
  readonly owner: StreamOwner;
  readonly kept: Kept[];
  bytes: number;
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
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  #bytes = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxStreams = positiveInteger('maxStreams', options.maxStreams, 10_000);
    this.#maxEvents = positiveInteger('maxEventsPerStream', options.maxEventsPerStream, 1_000);
    this.#maxBytes = positiveInteger('maxBytes', options.maxBytes, 64 * 1024 * 1024);
    this.#ttlMs = positiveInteger('ttlMs', options.ttlMs, 10 * 60_000);
  }

  /** Streams held right now. */
  get size(): number {
    return this.#streams.size;
  }

  /** Bytes held right now (JSON text of the recorded messages). */
  get bytes(): number {
    return this.#bytes;
  }

  async createStream(streamId: string, owner: StreamOwner): Promise<void> {
    const now = Date.now();
    for (const [id, entry] of this.#streams) {
      if (this.#streams.size < this.#maxStreams && entry.touched + this.#ttlMs > now) break;
      this.#drop(id, entry);
    }
    this.#streams.set(streamId, { owner, kept: [], bytes: 0, trimmed: -1, touched: now, waiters: new Set() });
  }

  async append(streamId: string, event: StoredEvent): Promise<void> {
    const entry = this.#live(streamId);
    if (entry === undefined) return;
    const bytes = event.message === undefined ? 0 : JSON.stringify(event.message).length;
    entry.kept.push({ event, bytes });
    entry.bytes += bytes;
    this.#bytes += bytes;
    this.#touch(streamId, entry);
    while (entry.kept.length > this.#maxEvents || (entry.bytes > this.#maxBytes && entry.kept.length > 1))
      this.#trim(entry);
    // Over the total: the least recently active other streams go first.
    for (const [id, other] of this.#streams) {
      if (this.#bytes <= this.#maxBytes || other === entry) break;
      this.#drop(id, other);
    }
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
      const kept = entry.kept;
      let from = kept.length;
      while (from > 0 && (kept[from - 1] as Kept).event.seq > afterSeq) from--;
      if (from < kept.length) return kept.slice(from).map((k) => k.event);
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

  async delete(streamId: string): Promise<void> {
    const entry = this.#streams.get(streamId);
    if (entry !== undefined) this.#drop(streamId, entry);
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

  #trim(entry: Entry): void {
    const oldest = entry.kept.shift() as Kept;
    entry.trimmed = oldest.event.seq;
    entry.bytes -= oldest.bytes;
    this.#bytes -= oldest.bytes;
  }

  /** Drops a stream; its waiting readers wake and find it gone. */
  #drop(streamId: string, entry: Entry): void {
    if (this.#streams.get(streamId) !== entry) return;
    this.#streams.delete(streamId);
    this.#bytes -= entry.bytes;
    for (const wake of [...entry.waiters]) wake();
  }
}
