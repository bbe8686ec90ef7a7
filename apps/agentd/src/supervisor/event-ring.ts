/**
 * A run's recent events, bounded (newest kept): what `agent://subagent/<handle>` and
 * `subagent.status` show of what the agent did. Each entry is the event with its sequence number
 * in the run and the time it happened. Long texts are cut before they are kept, so one chatty
 * event never pushes the others out; the byte bound is kept without a `JSON.stringify` per event.
 */
import { isoTime } from '../log/iso-clock.js';
import type { AgentEvent } from './types.js';

/** One kept event: the event's own fields, plus where it sits in the run and when it happened. */
export interface RunEventEntry extends AgentEvent {
  /** 1-based, in the order the run emitted its events (gaps mean older events were dropped). */
  seq: number;
  /** ISO time the event was emitted. */
  at: string;
}

/** Events kept per run. */
const RING_MAX_EVENTS = 200;
/** JSON bytes kept per run (the sum of the kept entries' encoded sizes). */
const RING_MAX_BYTES = 256 * 1024;
/** Characters kept of any one text field of an event (message chunks, tool output, diffs). */
export const EVENT_TEXT_CHARS = 4096;

/** `event` with every string longer than `max` characters cut (marked), nested objects included. */
export function boundEventTexts<T>(value: T, max = EVENT_TEXT_CHARS, depth = 0): T {
  return boundCopy(value, max, depth, { bytes: 0 }) as T;
}

/**
 * What a copy's JSON can take at most, in UTF-8 bytes, added up while copying: every UTF-16 unit
 * of a string or key is at most 6 bytes (`\u001f`), a number at most 25 characters. Infinity where
 * the shape does not tell (a bigint, a `toJSON`, an object past the copied depth).
 */
interface Measure {
  bytes: number;
}

function boundCopy(value: unknown, max: number, depth: number, measure: Measure): unknown {
  if (typeof value === 'string') {
    const text = value.length > max ? `${value.slice(0, max)}… [cut: ${value.length} chars]` : value;
    measure.bytes += 2 + 6 * text.length;
    return text;
  }
  if (typeof value === 'number') {
    measure.bytes += 25;
    return value;
  }
  if (value === null || typeof value !== 'object') {
    // true, false, null (undefined, a function or a symbol: left out, or null in an array).
    measure.bytes = typeof value === 'bigint' ? Number.POSITIVE_INFINITY : measure.bytes + 5;
    return value;
  }
  if (depth > 6) {
    measure.bytes = Number.POSITIVE_INFINITY;
    return value;
  }
  if (Array.isArray(value)) {
    // Brackets, a comma per item and room for a hole's `null`.
    measure.bytes += 2 + 6 * value.length;
    return value.map((item) => boundCopy(item, max, depth + 1, measure));
  }
  measure.bytes += 2;
  const out: Record<string, unknown> = {};
  const from = value as Record<string, unknown>;
  // for…in with an own-key check: the same keys as Object.entries without its array per key (every event passes here).
  for (const key in from) {
    // An agent's "__proto__" key would set the copy's prototype, never a field: it was never kept.
    if (!Object.hasOwn(from, key) || key === '__proto__') continue;
    if (key === 'toJSON') measure.bytes = Number.POSITIVE_INFINITY;
    // Quotes, colon, comma.
    measure.bytes += 4 + 6 * key.length;
    out[key] = boundCopy(from[key], max, depth + 1, measure);
  }
  return out;
}

/** Room for `seq` and `at` on an entry (both keys possibly already there, with other values). */
const ENTRY_FIELDS_BYTES = 256;

interface Kept {
  entry: RunEventEntry;
  /** The entry's JSON size: exact once measured, an upper bound before. */
  bytes: number;
  measured: boolean;
}

export class EventRing {
  private readonly entries: Kept[] = [];
  /** The sum of the kept entries' `bytes`: never less than their JSON size. */
  private bytes = 0;
  private unmeasured = 0;
  private seq = 0;

  constructor(
    private readonly maxEvents = RING_MAX_EVENTS,
    private readonly maxBytes = RING_MAX_BYTES,
  ) {}

  /** Keeps `event` (texts bounded) and drops the oldest entries past the bounds; `at` defaults to now. */
  push(event: AgentEvent, at?: Date): RunEventEntry {
    this.seq += 1;
    const measure = { bytes: ENTRY_FIELDS_BYTES };
    // The bounded copy is a fresh object: seq and at are set on it (a spread into a new literal costs more than the rest of the push).
    const entry = boundCopy(event, EVENT_TEXT_CHARS, 0, measure) as RunEventEntry;
    entry.seq = this.seq;
    entry.at = at === undefined ? isoTime() : at.toISOString();
    const kept: Kept = { entry, bytes: measure.bytes, measured: false };
    if (Number.isFinite(kept.bytes)) this.unmeasured += 1;
    else this.measureOne(kept);
    this.entries.push(kept);
    this.bytes += kept.bytes;
    while (this.entries.length > 1 && (this.entries.length > this.maxEvents || this.overBytes())) {
      const dropped = this.entries.shift();
      if (dropped === undefined) break;
      this.bytes -= dropped.bytes;
      if (!dropped.measured) this.unmeasured -= 1;
    }
    return entry;
  }

  /**
   * Whether the kept entries' JSON passes the byte bound. Their upper bounds answer while they are
   * within it (the common case: no `JSON.stringify` per event); past it every entry is measured,
   * once, so the entries dropped are exactly those an exact count drops.
   */
  private overBytes(): boolean {
    if (this.bytes <= this.maxBytes) return false;
    if (this.unmeasured > 0) {
      for (const kept of this.entries) {
        if (kept.measured) continue;
        const bound = kept.bytes;
        this.measureOne(kept);
        this.bytes += kept.bytes - bound;
        this.unmeasured -= 1;
      }
    }
    return this.bytes > this.maxBytes;
  }

  private measureOne(kept: Kept): void {
    kept.bytes = Buffer.byteLength(JSON.stringify(kept.entry), 'utf8');
    kept.measured = true;
  }

  /** The kept entries, oldest first (copies: a caller may keep them). */
  list(): RunEventEntry[] {
    return this.entries.map(({ entry }) => ({ ...entry }));
  }

  /** Events emitted so far, kept or not. */
  get total(): number {
    return this.seq;
  }
}
