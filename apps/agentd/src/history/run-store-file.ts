/**
 * The embedded run store: every run's record and whole event log, on local disk, kept across
 * restarts and `kill -9`. See apps/agentd/docs/runs.md for the format and why.
 *
 * Wiring (the daemon):
 * - `const store = await openRunStore({ dir, retention, logger })` at start. It throws only
 *   `LocalError('store_locked')` (another live agentd holds the state directory; its pid is in the
 *   message). An unwritable or full directory does not throw: the store reports once, through the
 *   logger, that history is not being kept, and keeps this process's records in memory.
 * - `await store.markLiveRunsLost()` once, before serving: runs a previous process left live
 *   end as `lost` (their events stay). Returns their records.
 * - `store.recordRun(status)` at every change of a run (upsert; the last record wins) and
 *   `store.appendEvent(runId, event)` for every event and output line (`{type:'message', text,
 *   stream}`), in order. Both return at once: writes are batched per tick. They never throw.
 * - Reads: `get(runIdOrHandle)` (the whole last record), `events(runId, {after, limit})` (the
 *   whole log, a page at a time), `list({cursor, limit, agent, state, since, owner, text})`
 *   (summaries, newest first). Handles are capabilities: `list` returns them in summaries, so
 *   filter by `owner` for restricted peers.
 * - `await store.close()` at shutdown (flushes, syncs, releases the lock).
 *
 * Durability: a batch is written with one `write` per file and no `fsync`, so a killed process
 * loses nothing that was handed to the kernel (at most the event being written, if the kill cut
 * its write). A run's events and record are `fsync`ed when its record becomes terminal, so a power
 * loss can lose events of live runs from the last few seconds, not a finished run.
 */

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonObject, LocalError, type Logger } from '@agentd/rpc-frame';
import { isoTime } from '../log/iso-clock.js';
import { eventJson, recordCopy } from './event-json.js';
import { EventLogs, pendingEvent } from './event-logs.js';
import { defaultStateDir, HISTORY_DEFAULTS, type HistoryConfig } from './history-config.js';
import { HistoryIndex, type IndexEntry } from './history-index.js';
import type {
  EventPage,
  EventQuery,
  ListQuery,
  RunPage,
  RunStore,
  StoredRecord,
  StoreInfo,
} from './history-types.js';
import { IndexLog } from './index-log.js';
import { lostRecord } from './lost-record.js';
import { retentionVictims } from './retention.js';
import { acquireStoreLock, type StoreLock } from './store-lock.js';

export interface RunStoreOptions {
  /** The state directory; default `$XDG_STATE_HOME/agentd`, else `~/.local/state/agentd`. */
  dir?: string;
  retention?: Partial<HistoryConfig>;
  logger: Logger;
}

export const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;
const RETENTION_EVERY_MS = 60 * 60 * 1000;
/** Events waiting for a slow disk beyond this are dropped (and that is reported). */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
const FIELDS = { component: 'history' };

interface PendingRecord {
  record: StoredRecord;
  version: number;
}

/** A run's share of the store's bytes (its log and, about, its record). */
function entrySize(entry: IndexEntry): number {
  return entry.eventBytes + JSON.stringify(entry.summary).length;
}

export function validRecord(record: unknown): record is StoredRecord {
  const r = record as Partial<StoredRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.handle === 'string' &&
    typeof r.runId === 'string' &&
    RUN_ID.test(r.runId) &&
    typeof r.state === 'string' &&
    typeof r.startedAt === 'string' &&
    Number.isFinite(Date.parse(r.startedAt))
  );
}

export async function openRunStore(options: RunStoreOptions): Promise<RunStore> {
  const limits = { ...HISTORY_DEFAULTS, ...options.retention };
  const store = new FileRunStore(options.dir ?? defaultStateDir(), limits, options.logger);
  await store.open();
  return store;
}

class FileRunStore implements RunStore {
  readonly dir: string;
  readonly #history: string;
  readonly #limits: HistoryConfig;
  readonly #logger: Logger;
  readonly #index = new HistoryIndex();
  readonly #log: IndexLog;
  readonly #events: EventLogs;
  readonly #pendingRecords = new Map<string, PendingRecord>();
  readonly #pendingEvents = new Map<string, string[]>();
  #pendingBytes = 0;
  #lock: StoreLock | undefined;
  /** Bytes of every event log (those of runs in the index). */
  #eventBytes = 0;
  #chain: Promise<void> = Promise.resolve();
  #scheduled = false;
  /** No directory to write to: records live in memory for this process only. */
  #disabled = false;
  #keeping = true;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(dir: string, limits: HistoryConfig, logger: Logger) {
    this.dir = dir;
    this.#history = join(dir, 'history');
    const corrupt = join(this.#history, 'corrupt');
    this.#log = new IndexLog(join(this.#history, 'index.jsonl'), corrupt, logger);
    this.#events = new EventLogs(join(this.#history, 'events'), corrupt, logger);
    this.#limits = limits;
    this.#logger = logger;
  }

  async open(): Promise<void> {
    try {
      await mkdir(this.#events.dir, { recursive: true, mode: 0o700 });
      this.#lock = await acquireStoreLock(join(this.dir, 'agentd.lock'));
    } catch (error) {
      if (error instanceof LocalError) throw error;
      this.#disabled = true;
      this.#down(error, this.dir);
      return;
    }
    try {
      await this.#log.load(this.#index, validRecord);
      await this.#loadEventSizes();
      await this.#applyRetention(Date.now());
    } catch (error) {
      this.#disabled = true;
      this.#down(error, this.#history);
    }
    this.#timer = setInterval(() => {
      void this.#enqueue(() => this.#applyRetention(Date.now()), undefined);
    }, RETENTION_EVERY_MS);
    this.#timer.unref();
  }

  recordRun(record: StoredRecord): void {
    if (this.#closed) return;
    const copy = recordCopy(record, this.#logger);
    if (copy === undefined) return;
    if (!validRecord(copy)) {
      this.#logger.warn('run record not stored: it needs handle, runId, state and startedAt', FIELDS);
      return;
    }
    const entry = this.#index.upsert(copy);
    entry.version++;
    entry.full = copy;
    if (this.#disabled) {
      for (const victim of retentionVictims(this.#index.entries(), 0, this.#limits, Date.now(), entrySize)) {
        this.#index.remove(victim.runId);
      }
      return;
    }
    this.#pendingRecords.set(copy.runId, { record: copy, version: entry.version });
    this.#schedule();
  }

  appendEvent(runId: string, event: JsonObject): void {
    if (this.#closed || this.#disabled) return;
    const pending = this.#pendingEvents.get(runId);
    // A run id with events waiting was checked with its first one this tick.
    if (pending === undefined && !RUN_ID.test(runId)) {
      this.#logger.warn('run event not stored: invalid run id', FIELDS);
      return;
    }
    const json = eventJson(event, runId, this.#logger);
    if (json === undefined) return;
    if (this.#pendingBytes + json.length > MAX_PENDING_BYTES) {
      this.#down(new Error('the disk is not keeping up: events dropped'), this.#events.dir);
      return;
    }
    const line = pendingEvent(json, isoTime());
    if (pending === undefined) this.#pendingEvents.set(runId, [line]);
    else pending.push(line);
    this.#pendingBytes += line.length;
    this.#schedule();
  }

  async get(runIdOrHandle: string): Promise<StoredRecord | undefined> {
    const entry = this.#index.get(runIdOrHandle);
    if (entry === undefined) return undefined;
    if (entry.full !== undefined) return structuredClone(entry.full);
    return this.#enqueue(async () => {
      const current = this.#index.get(runIdOrHandle);
      if (current === undefined) return undefined;
      if (current.full !== undefined) return structuredClone(current.full);
      const read = current.loc === undefined ? undefined : await this.#log.read(current.loc);
      return read ?? current.summary;
    }, entry.summary);
  }

  async events(runId: string, query: EventQuery = {}): Promise<EventPage> {
    if (!RUN_ID.test(runId) || this.#disabled) return { events: [] };
    await this.flush();
    const after = Math.max(0, Math.trunc(query.after ?? 0));
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 1000), 1), 10_000);
    return this.#enqueue(
      async () => {
        try {
          return await this.#events.read(runId, after, limit);
        } catch (error) {
          this.#logger.warn('run events not readable', {
            ...FIELDS,
            path: this.#events.path(runId),
            error: String(error),
          });
          return { events: [] };
        }
      },
      { events: [] },
    );
  }

  async list(query: ListQuery = {}): Promise<RunPage> {
    return this.#index.list(query);
  }

  async markLiveRunsLost(now = new Date()): Promise<StoredRecord[]> {
    const lost: StoredRecord[] = [];
    for (const entry of [...this.#index.entries()]) {
      if (!entry.live || this.#events.isOpen(entry.runId)) continue;
      const ended = lostRecord(
        (await this.get(entry.runId)) ?? entry.summary,
        now,
        'agentd stopped (a restart or a crash) while the run was live; its outcome is unknown',
      );
      // Its log may end in a write cut by the crash: checked (and cut) now, reported with its path.
      if (!this.#disabled) {
        await this.#enqueue(async () => {
          const size = await this.#events.check(entry.runId);
          this.#eventBytes += size - entry.eventBytes;
          entry.eventBytes = size;
        }, undefined);
      }
      this.recordRun(ended);
      lost.push(ended);
    }
    await this.flush();
    return lost;
  }

  flush(): Promise<void> {
    this.#scheduled = false;
    return this.#enqueue(() => this.#writeBatch(), undefined);
  }

  info(): StoreInfo {
    return {
      dir: this.dir,
      runs: this.#index.size,
      bytes: this.#log.size + this.#eventBytes,
      keeping: this.#keeping && !this.#disabled,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.flush();
    this.#closed = true;
    await this.#enqueue(async () => {
      await this.#events.closeAll();
      await this.#log.close();
      await this.#lock?.release();
    }, undefined);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      if (this.#scheduled) void this.flush();
    });
  }

  /** Runs `task` after every earlier write and read. A failure is reported and answered with `fallback`. */
  #enqueue<T>(task: () => Promise<T>, fallback: T): Promise<T> {
    const run = this.#chain.then(task).catch((error: unknown) => {
      this.#down(error, this.#history);
      return fallback;
    });
    this.#chain = run.then(() => {});
    return run;
  }

  async #writeBatch(): Promise<void> {
    if (this.#disabled || !this.#log.open) return;
    const records = [...this.#pendingRecords.values()];
    const events = [...this.#pendingEvents];
    this.#pendingRecords.clear();
    this.#pendingEvents.clear();
    this.#pendingBytes = 0;
    if (records.length === 0 && events.length === 0) return;
    let failed = false;
    // A live run's first record goes before its events, so a kill between the two writes leaves
    // a run that ends `lost` with what it had, not a log without a record (removed at start).
    const fresh = records.filter((p) => {
      const entry = this.#index.get(p.record.runId);
      return entry !== undefined && entry.loc === undefined && entry.live;
    });
    if (fresh.length > 0 && !(await this.#writeRecords(fresh))) failed = true;
    const later = fresh.length === 0 ? records : records.filter((p) => !fresh.includes(p));
    // Events next: a terminal record never names more than its log holds.
    for (const [runId, lines] of events) {
      try {
        const size = await this.#events.write(runId, lines);
        const entry = this.#index.get(runId);
        if (entry !== undefined) {
          this.#eventBytes += size - entry.eventBytes;
          entry.eventBytes = size;
        }
      } catch (error) {
        failed = true;
        this.#down(error, this.#events.path(runId));
      }
    }
    if (later.length > 0 && !(await this.#writeRecords(later))) failed = true;
    const ended = records.filter((p) => !this.#index.get(p.record.runId)?.live);
    for (const { record } of ended) await this.#events.close(record.runId, true);
    if (ended.length > 0) await this.#log.sync();
    if (failed) return;
    this.#up();
    await this.#applyRetention(Date.now(), true);
    if (this.#log.lines > 2 * this.#index.size + 1000) await this.#log.compact(this.#index);
  }

  async #writeRecords(records: readonly PendingRecord[]): Promise<boolean> {
    let written: { offset: number; length: number }[];
    try {
      written = await this.#log.appendRecords(records.map((p) => p.record));
    } catch (error) {
      this.#down(error, this.#log.path);
      return false;
    }
    records.forEach((pending, i) => {
      const entry = this.#index.get(pending.record.runId);
      if (entry === undefined) return;
      entry.loc = written[i];
      if (entry.version === pending.version) entry.full = undefined;
    });
    return true;
  }

  async #loadEventSizes(): Promise<void> {
    let orphans = 0;
    for (const [runId, size] of await this.#events.sizes()) {
      const entry = this.#index.get(runId);
      if (entry === undefined || entry.runId !== runId) {
        // Events of a run whose record was removed (or never written): nothing can reach them.
        await this.#events.remove(runId);
        orphans++;
        continue;
      }
      entry.eventBytes = size;
      this.#eventBytes += size;
    }
    if (orphans > 0)
      this.#logger.info('removed event logs without a run record', { ...FIELDS, count: orphans });
  }

  /** Removes runs past the bounds, oldest first. `cheap`: skip unless a count or size bound is passed. */
  async #applyRetention(now: number, cheap = false): Promise<void> {
    if (this.#disabled || !this.#log.open) return;
    const bytes = this.#log.size + this.#eventBytes;
    if (cheap && bytes <= this.#limits.maxBytes && this.#index.size <= this.#limits.maxRuns) return;
    const victims = retentionVictims(this.#index.entries(), bytes, this.#limits, now, entrySize);
    if (victims.length === 0) return;
    for (const victim of victims) {
      this.#index.remove(victim.runId);
      await this.#events.remove(victim.runId);
      this.#eventBytes -= victim.eventBytes;
    }
    try {
      await this.#log.appendDeletions(victims.map((victim) => victim.runId));
    } catch (error) {
      this.#down(error, this.#log.path);
    }
    this.#logger.info('old runs removed from history', { ...FIELDS, count: victims.length });
  }

  #down(error: unknown, path: string): void {
    if (!this.#keeping) return;
    this.#keeping = false;
    this.#logger.error('history is not being kept: runs go on, but their records and events are not saved', {
      ...FIELDS,
      path,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  #up(): void {
    if (this.#keeping || this.#disabled) return;
    this.#keeping = true;
    this.#logger.warn('history is being kept again', { ...FIELDS, dir: this.#history });
  }
}
