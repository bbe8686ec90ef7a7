/** The run store's in-memory index: every run's summary, newest-first pages, lookup by run id or handle. */
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { ListQuery, RunPage, RunSummary, StoredRecord } from './history-types.js';

const FINAL_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled', 'timed_out', 'lost']);
const SUMMARY_DROPS = ['result', 'output', 'tail'];
const MAX_SUMMARY_STRING = 1024;
const SEARCH_OUTPUT_CHARS = 1024;

export interface IndexEntry {
  runId: string;
  handle: string;
  startedMs: number;
  endedMs: number | undefined;
  live: boolean;
  summary: RunSummary;
  search: string;
  /** Where the latest record sits in the index file, once written. */
  loc: { offset: number; length: number } | undefined;
  /** The latest record while it is not (yet) on disk. */
  full: StoredRecord | undefined;
  /** Bumped at every record: a write that finishes for an older version leaves `full` in place. */
  version: number;
  eventBytes: number;
}

/** Live unless `terminal` says otherwise, or (without it) its state is a final one. */
export function isLive(record: StoredRecord): boolean {
  if (typeof record.terminal === 'boolean') return !record.terminal;
  return !FINAL_STATES.has(record.state);
}

/** The record as listed: without result, output and tail, long strings cut. */
export function summarise(record: StoredRecord): RunSummary {
  const summary: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    if (SUMMARY_DROPS.includes(key)) continue;
    summary[key] =
      typeof value === 'string' && value.length > MAX_SUMMARY_STRING
        ? `${value.slice(0, MAX_SUMMARY_STRING)}…`
        : value;
  }
  return summary as RunSummary;
}

/** What `list({text})` searches, lower case. */
export function searchText(record: StoredRecord): string {
  const error = record.error as { message?: unknown } | undefined;
  const parts = [record.runId, record.agent, record.state, error?.message, record.instruction];
  if (typeof record.output === 'string') parts.push(record.output.slice(0, SEARCH_OUTPUT_CHARS));
  return parts
    .filter((part): part is string => typeof part === 'string')
    .map((part) => part.slice(0, MAX_SUMMARY_STRING))
    .join('\n')
    .toLowerCase();
}

function compare(a: { startedMs: number; runId: string }, b: { startedMs: number; runId: string }): number {
  return a.startedMs - b.startedMs || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);
}

function encodeCursor(entry: IndexEntry): string {
  return Buffer.from(JSON.stringify([entry.startedMs, entry.runId])).toString('base64url');
}

function decodeCursor(cursor: string): { startedMs: number; runId: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { startedMs: value[0], runId: value[1] };
    }
  } catch {}
  return undefined;
}

/** Whether a run is on the page `query` asks for (`text` lower case). */
export function matches(
  entry: Pick<IndexEntry, 'summary' | 'search' | 'startedMs'>,
  query: ListQuery,
  sinceMs: number | undefined,
  text: string | undefined,
): boolean {
  const summary = entry.summary;
  if (query.agent !== undefined && summary.agent !== query.agent) return false;
  if (query.state !== undefined && summary.state !== query.state) return false;
  if (query.owner !== undefined && summary.owner !== query.owner) return false;
  if (sinceMs !== undefined && entry.startedMs < sinceMs) return false;
  return text === undefined || entry.search.includes(text);
}

export class HistoryIndex {
  readonly #byRunId = new Map<string, IndexEntry>();
  readonly #byHandle = new Map<string, IndexEntry>();
  /** Oldest first by start time, then run id. */
  readonly #order: IndexEntry[] = [];

  get size(): number {
    return this.#byRunId.size;
  }

  get(runIdOrHandle: string): IndexEntry | undefined {
    return this.#byRunId.get(runIdOrHandle) ?? this.#byHandle.get(runIdOrHandle);
  }

  /** Oldest first. */
  entries(): readonly IndexEntry[] {
    return this.#order;
  }

  /** The entry of the record, new or updated (summary, liveness, times; not its location). */
  upsert(record: StoredRecord): IndexEntry {
    const startedMs = Date.parse(record.startedAt);
    const endedMs = typeof record.endedAt === 'string' ? Date.parse(record.endedAt) : undefined;
    let entry = this.#byRunId.get(record.runId);
    let eventBytes = 0;
    if (entry !== undefined && (entry.startedMs !== startedMs || entry.handle !== record.handle)) {
      // Re-keyed (a new start time or handle): its place in the order and handle map change, its log does not.
      eventBytes = entry.eventBytes;
      this.remove(record.runId);
      entry = undefined;
    }
    if (entry === undefined) {
      entry = {
        runId: record.runId,
        handle: record.handle,
        startedMs,
        endedMs,
        live: isLive(record),
        summary: summarise(record),
        search: searchText(record),
        loc: undefined,
        full: undefined,
        version: 0,
        eventBytes,
      };
      this.#byRunId.set(entry.runId, entry);
      this.#byHandle.set(entry.handle, entry);
      this.#insert(entry);
      return entry;
    }
    entry.endedMs = endedMs;
    entry.live = isLive(record);
    entry.summary = summarise(record);
    entry.search = searchText(record);
    return entry;
  }

  remove(runId: string): IndexEntry | undefined {
    const entry = this.#byRunId.get(runId);
    if (entry === undefined) return undefined;
    this.#byRunId.delete(runId);
    if (this.#byHandle.get(entry.handle) === entry) this.#byHandle.delete(entry.handle);
    const at = this.#search(entry);
    if (this.#order[at] === entry) this.#order.splice(at, 1);
    return entry;
  }

  list(query: ListQuery): RunPage {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), 1000);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && after === undefined) {
      throw new LocalError<AgentdErrorCode>(
        'invalid_request',
        'invalid cursor: pass the nextCursor of a previous page',
      );
    }
    let i = after === undefined ? this.#order.length - 1 : this.#search(after) - 1;
    const sinceMs = query.since?.getTime();
    const text = query.text === undefined || query.text === '' ? undefined : query.text.toLowerCase();
    const runs: RunSummary[] = [];
    let last: IndexEntry | undefined;
    for (; i >= 0 && runs.length < limit; i--) {
      const entry = this.#order[i] as IndexEntry;
      // Newest first: everything further down started earlier.
      if (sinceMs !== undefined && entry.startedMs < sinceMs) break;
      if (!matches(entry, query, sinceMs, text)) continue;
      runs.push({ ...entry.summary });
      last = entry;
    }
    const more = last !== undefined && runs.length === limit && i >= 0;
    return more ? { runs, nextCursor: encodeCursor(last as IndexEntry) } : { runs };
  }

  /** The position of the first entry not before `key`. */
  #search(key: { startedMs: number; runId: string }): number {
    let lo = 0;
    let hi = this.#order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.#order[mid] as IndexEntry, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #insert(entry: IndexEntry): void {
    const last = this.#order[this.#order.length - 1];
    if (last === undefined || compare(last, entry) < 0) this.#order.push(entry);
    else this.#order.splice(this.#search(entry), 0, entry);
  }
}
