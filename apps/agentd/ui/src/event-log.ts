/**
 * A run's events on the page, bounded (newest kept). They come two ways: the `events` of a status
 * read (`adopt`: the daemon's own bounded list, each with its `seq`), and one by one as a followed
 * run streams them, or as the page learns them itself (an operator's answer: `push`). A snapshot
 * is authoritative up to its newest `seq`: what was pushed with a later `seq` stays after it, what
 * was pushed without one is replaced by it (the snapshot holds it, or the next one will).
 */
import type { RunEventEntry } from './run-events.js';

export class EventLog {
  #entries: RunEventEntry[] = [];
  #version = 0;

  constructor(readonly maxEvents = 1000) {}

  get entries(): readonly RunEventEntry[] {
    return this.#entries;
  }

  /** Grows with every change, so a view re-renders exactly when something changed. */
  get version(): number {
    return this.#version;
  }

  #newestSeq(entries: readonly RunEventEntry[]): number {
    let newest = Number.NEGATIVE_INFINITY;
    for (const e of entries) if (e.seq !== undefined && e.seq > newest) newest = e.seq;
    return newest;
  }

  /** Folds in a status's events; returns whether anything changed. */
  adopt(snapshot: readonly RunEventEntry[]): boolean {
    const newest = this.#newestSeq(snapshot);
    const later = this.#entries.filter((e) => e.seq !== undefined && e.seq > newest);
    const next = [...snapshot, ...later];
    const same =
      next.length === this.#entries.length &&
      next.every((e, i) => {
        const had = this.#entries[i] as RunEventEntry;
        return e.seq !== undefined && had.seq === e.seq;
      });
    if (same) return false;
    this.#entries = next;
    this.#bound();
    this.#version++;
    return true;
  }

  /** One streamed (or locally known) event; one already held (same `seq`) is ignored. */
  push(entry: RunEventEntry): boolean {
    if (entry.seq !== undefined && this.#entries.some((e) => e.seq === entry.seq)) return false;
    this.#entries.push(entry);
    this.#bound();
    this.#version++;
    return true;
  }

  #bound(): void {
    if (this.#entries.length > this.maxEvents) this.#entries.splice(0, this.#entries.length - this.maxEvents);
  }
}
