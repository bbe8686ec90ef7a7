/**
 * A run's recent events, bounded (newest kept): what `agent://subagent/<handle>` and
 * `subagent.status` show of what the agent did. Each entry is the event with its sequence number
 * in the run and the time it happened. Long texts are cut before they are kept, so one chatty
 * event never pushes the others out and the ring's size is known without re-measuring.
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
  if (typeof value === 'string')
    return (value.length > max ? `${value.slice(0, max)}… [cut: ${value.length} chars]` : value) as T;
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => boundEventTexts(item, max, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  const from = value as Record<string, unknown>;
  // for…in with an own-key check: the same keys as Object.entries without its array per key (every event passes here).
  for (const key in from) {
    // An agent's "__proto__" key would set the copy's prototype, never a field: it was never kept.
    if (!Object.hasOwn(from, key) || key === '__proto__') continue;
    out[key] = boundEventTexts(from[key], max, depth + 1);
  }
  return out as T;
}

export class EventRing {
  private readonly entries: { entry: RunEventEntry; bytes: number }[] = [];
  private bytes = 0;
  private seq = 0;

  constructor(
    private readonly maxEvents = RING_MAX_EVENTS,
    private readonly maxBytes = RING_MAX_BYTES,
  ) {}

  /** Keeps `event` (texts bounded) and drops the oldest entries past the bounds; `at` defaults to now. */
  push(event: AgentEvent, at?: Date): RunEventEntry {
    this.seq += 1;
    // The bounded copy is a fresh object: seq and at are set on it (a spread into a new literal costs more than the rest of the push).
    const entry = boundEventTexts(event) as RunEventEntry;
    entry.seq = this.seq;
    entry.at = at === undefined ? isoTime() : at.toISOString();
    const bytes = Buffer.byteLength(JSON.stringify(entry), 'utf8');
    this.entries.push({ entry, bytes });
    this.bytes += bytes;
    while (this.entries.length > 1 && (this.entries.length > this.maxEvents || this.bytes > this.maxBytes)) {
      const dropped = this.entries.shift();
      if (dropped !== undefined) this.bytes -= dropped.bytes;
    }
    return entry;
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
