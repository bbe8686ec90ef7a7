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

import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonObject, LocalError, type Logger } from '@agentd/rpc-frame';
import { defaultStateDir, HISTORY_DEFAULTS, type HistoryConfig } from './history-config.js';
import { HistoryIndex, type IndexEntry } from './history-index.js';
import type {
  EventPage,
  EventQuery,
  ListQuery,
  RunPage,
  StoredEvent,
  StoredRecord,
  StoreInfo,
} from './history-types.js';
import { encodeLine, scanLines } from './line-codec.js';
import { retentionVictims } from './retention.js';
import { checkLog, readLog, setAside } from './segment-log.js';
import { acquireStoreLock, type StoreLock } from './store-lock.js';

export interface RunStore {
  /** The state directory (the store is its `history/` folder). */
  readonly dir: string;
  recordRun(record: StoredRecord): void;
  appendEvent(runId: string, event: JsonObject): void;
  get(runIdOrHandle: string): Promise<StoredRecord | undefined>;
  events(runId: string, query?: EventQuery): Promise<EventPage>;
  /** Throws `invalid_request` for a cursor that is not a `nextCursor`. */
  list(query?: ListQuery): RunPage;
  markLiveRunsLost(now?: Date): Promise<StoredRecord[]>;
  /** Resolves once everything recorded so far is written (or has failed to be). */
  flush(): Promise<void>;
  info(): StoreInfo;
  close(): Promise<void>;
}

export interface RunStoreOptions {
  /** The state directory; default `$XDG_STATE_HOME/agentd`, else `~/.local/state/agentd`. */
  dir?: string;
  retention?: Partial<HistoryConfig>;
  logger: Logger;
}

const HEADER = JSON.stringify({ $format: 'agentd-run-index', version: 1 });
const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;
const RETENTION_EVERY_MS = 60 * 60 * 1000;
/** Events waiting for a slow disk beyond this are dropped (and that is reported). */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;
const FIELDS = { component: 'history' };

interface EventFile {
  handle: FileHandle;
  size: number;
  lastSeq: number;
}

interface PendingRecord {
  record: StoredRecord;
  version: number;
}

function lastSeqOf(json: string | undefined): number {
  if (json === undefined) return 0;
  const seq = (JSON.parse(json) as { seq?: unknown }).seq;
  return typeof seq === 'number' ? seq : 0;
}

function validRecord(record: unknown): record is StoredRecord {
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
  readonly #eventsDir: string;
  readonly #corrupt: string;
  readonly #indexPath: string;
  readonly #limits: HistoryConfig;
  readonly #logger: Logger;
  readonly #index = new HistoryIndex();
  readonly #files = new Map<string, EventFile>();
  readonly #pendingRecords = new Map<string, PendingRecord>();
  readonly #pendingEvents = new Map<string, string[]>();
  readonly #readAt = new Map<string, { seq: number; offset: number }>();
  #pendingBytes = 0;
  #lock: StoreLock | undefined;
  #indexFile: FileHandle | undefined;
  #indexSize = 0;
  #indexLines = 0;
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
    this.#eventsDir = join(this.#history, 'events');
    this.#corrupt = join(this.#history, 'corrupt');
    this.#indexPath = join(this.#history, 'index.jsonl');
    this.#limits = limits;
    this.#logger = logger;
  }

  async open(): Promise<void> {
    try {
      await mkdir(this.#eventsDir, { recursive: true, mode: 0o700 });
      this.#lock = await acquireStoreLock(join(this.dir, 'agentd.lock'));
    } catch (error) {
      if (error instanceof LocalError) throw error;
      this.#disabled = true;
      this.#down(error, this.dir);
      return;
    }
    try {
      await this.#loadIndex();
      await this.#loadEventSizes();
      // Compacted at every start unless it is already one line per run.
      if (this.#indexLines === this.#index.size + 1)
        this.#indexFile = await open(this.#indexPath, 'a', 0o600);
      else await this.#compact();
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
    let copy: StoredRecord;
    try {
      copy = JSON.parse(JSON.stringify(record)) as StoredRecord;
    } catch (error) {
      this.#logger.warn('run record not stored: not JSON', { ...FIELDS, error: String(error) });
      return;
    }
    if (!validRecord(copy)) {
      this.#logger.warn('run record not stored: it needs handle, runId, state and startedAt', FIELDS);
      return;
    }
    const entry = this.#index.upsert(copy);
    entry.version++;
    entry.full = copy;
    if (this.#disabled) {
      for (const victim of retentionVictims(this.#index.entries(), 0, this.#limits, Date.now())) {
        this.#index.remove(victim.runId);
      }
      return;
    }
    this.#pendingRecords.set(copy.runId, { record: copy, version: entry.version });
    this.#schedule();
  }

  appendEvent(runId: string, event: JsonObject): void {
    if (this.#closed || this.#disabled) return;
    if (!RUN_ID.test(runId)) {
      this.#logger.warn('run event not stored: invalid run id', FIELDS);
      return;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(event);
    } catch {}
    if (json === undefined) {
      this.#logger.warn('run event not stored: not JSON', { ...FIELDS, runId });
      return;
    }
    if (this.#pendingBytes + json.length > MAX_PENDING_BYTES) {
      this.#down(new Error('the disk is not keeping up: events dropped'), this.#eventsDir);
      return;
    }
    const at = new Date().toISOString();
    const pending = this.#pendingEvents.get(runId);
    // The sequence number is given at write time, once the file's last one is known.
    const line = `,"at":"${at}","event":${json}}`;
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
      return (await this.#readRecord(current)) ?? current.summary;
    }, entry.summary);
  }

  async events(runId: string, query: EventQuery = {}): Promise<EventPage> {
    if (!RUN_ID.test(runId) || this.#disabled) return { events: [] };
    await this.flush();
    const after = Math.max(0, Math.trunc(query.after ?? 0));
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 1000), 1), 10_000);
    return this.#enqueue(
      async () => {
        const events: StoredEvent[] = [];
        const cached = this.#readAt.get(runId);
        const from = cached !== undefined && cached.seq === after ? cached.offset : 0;
        let end = from;
        try {
          await readLog(
            join(this.#eventsDir, `${runId}.jsonl`),
            (line) => {
              const stored = JSON.parse(line.json) as StoredEvent;
              if (stored.seq <= after) return true;
              events.push(stored);
              end = line.offset + line.length;
              return events.length < limit;
            },
            from,
          );
        } catch (error) {
          this.#logger.warn('run events not readable', { ...FIELDS, runId, error: String(error) });
          return { events };
        }
        const last = events[events.length - 1];
        if (last === undefined) return { events };
        this.#readAt.delete(runId);
        this.#readAt.set(runId, { seq: last.seq, offset: end });
        if (this.#readAt.size > 64) this.#readAt.delete(this.#readAt.keys().next().value as string);
        return events.length === limit ? { events, next: last.seq } : { events };
      },
      { events: [] },
    );
  }

  list(query: ListQuery = {}): RunPage {
    return this.#index.list(query);
  }

  async markLiveRunsLost(now = new Date()): Promise<StoredRecord[]> {
    const lost: StoredRecord[] = [];
    for (const entry of [...this.#index.entries()]) {
      if (!entry.live || this.#files.has(entry.runId)) continue;
      const record = (await this.get(entry.runId)) ?? entry.summary;
      const { pid: _pid, ...rest } = record;
      const ended: StoredRecord = {
        ...rest,
        state: 'lost',
        terminal: true,
        busy: false,
        endedAt: now.toISOString(),
        error: {
          code: 'lost',
          message: 'agentd stopped (a restart or a crash) while the run was live; its outcome is unknown',
        },
      };
      // Its log may end in a write cut by the crash: checked (and cut) now, reported with its path.
      if (!this.#disabled) await this.#enqueue(() => this.#checkEvents(entry), undefined);
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
      bytes: this.#indexSize + this.#eventBytes,
      keeping: this.#keeping && !this.#disabled,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.flush();
    this.#closed = true;
    await this.#enqueue(async () => {
      for (const [runId, file] of this.#files) await this.#closeFile(runId, file, true);
      await this.#indexFile?.sync().catch(() => {});
      await this.#indexFile?.close().catch(() => {});
      this.#indexFile = undefined;
      await this.#lock?.release();
    }, undefined);
  }

  // --- writing ---

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
    if (this.#disabled || this.#indexFile === undefined) return;
    const records = [...this.#pendingRecords.values()];
    const events = [...this.#pendingEvents];
    this.#pendingRecords.clear();
    this.#pendingEvents.clear();
    this.#pendingBytes = 0;
    if (records.length === 0 && events.length === 0) return;
    let failed = false;
    // Events first: a record never names more than its log holds.
    for (const [runId, lines] of events) {
      if (!(await this.#writeEvents(runId, lines))) failed = true;
    }
    if (records.length > 0 && !(await this.#writeRecords(records))) failed = true;
    const ended = records.filter((p) => !this.#index.get(p.record.runId)?.live);
    for (const { record } of ended) {
      const file = this.#files.get(record.runId);
      if (file !== undefined) await this.#closeFile(record.runId, file, true);
    }
    if (ended.length > 0) await this.#indexFile?.sync().catch(() => {});
    if (failed) return;
    this.#up();
    await this.#applyRetention(Date.now(), true);
    if (this.#indexLines > 2 * this.#index.size + 1000) await this.#compact();
  }

  async #writeEvents(runId: string, lines: readonly string[]): Promise<boolean> {
    let file: EventFile | undefined;
    const path = join(this.#eventsDir, `${runId}.jsonl`);
    try {
      file = await this.#openEvents(runId, path);
      let seq = file.lastSeq;
      const buffer = Buffer.concat(lines.map((line) => encodeLine(`{"seq":${++seq}${line}`)));
      await file.handle.write(buffer);
      file.size += buffer.length;
      file.lastSeq = seq;
      this.#eventBytes += buffer.length;
      const entry = this.#index.get(runId);
      if (entry !== undefined) entry.eventBytes = file.size;
      return true;
    } catch (error) {
      // Whole lines only: a cut write is taken back, so later events are not appended to a torn one.
      if (file !== undefined) await file.handle.truncate(file.size).catch(() => {});
      this.#down(error, path);
      return false;
    }
  }

  async #openEvents(runId: string, path: string): Promise<EventFile> {
    const open_ = this.#files.get(runId);
    if (open_ !== undefined) return open_;
    const entry = this.#index.get(runId);
    const checked = await checkLog(path, this.#corrupt, this.#logger);
    const handle = await open(path, 'a', 0o600);
    const file = { handle, size: checked.size, lastSeq: lastSeqOf(checked.lines.at(-1)?.json) };
    this.#eventBytes += checked.size - (entry?.eventBytes ?? 0);
    if (entry !== undefined) entry.eventBytes = checked.size;
    this.#files.set(runId, file);
    return file;
  }

  async #closeFile(runId: string, file: EventFile, sync: boolean): Promise<void> {
    this.#files.delete(runId);
    if (sync) await file.handle.sync().catch(() => {});
    await file.handle.close().catch(() => {});
  }

  async #writeRecords(records: readonly PendingRecord[]): Promise<boolean> {
    const lines = records.map((p) => encodeLine(JSON.stringify(p.record)));
    return this.#appendIndex(lines, (offsets) => {
      records.forEach((pending, i) => {
        const entry = this.#index.get(pending.record.runId);
        if (entry === undefined || entry.runId !== pending.record.runId) return;
        entry.loc = offsets[i];
        if (entry.version === pending.version) entry.full = undefined;
      });
    });
  }

  async #appendIndex(
    lines: readonly Buffer[],
    onWritten: (offsets: { offset: number; length: number }[]) => void,
  ): Promise<boolean> {
    const file = this.#indexFile;
    if (file === undefined) return false;
    const buffer = Buffer.concat(lines);
    try {
      await file.write(buffer);
    } catch (error) {
      await file.truncate(this.#indexSize).catch(() => {});
      this.#down(error, this.#indexPath);
      return false;
    }
    let offset = this.#indexSize;
    onWritten(
      lines.map((line) => {
        const at = { offset, length: line.length };
        offset += line.length;
        return at;
      }),
    );
    this.#indexSize += buffer.length;
    this.#indexLines += lines.length;
    return true;
  }

  // --- reading ---

  async #readRecord(entry: IndexEntry): Promise<StoredRecord | undefined> {
    if (entry.loc === undefined) return undefined;
    const buffer = Buffer.alloc(entry.loc.length);
    try {
      const handle = await open(this.#indexPath, 'r');
      try {
        await handle.read(buffer, 0, buffer.length, entry.loc.offset);
      } finally {
        await handle.close();
      }
    } catch (error) {
      this.#logger.warn('run record not readable', {
        ...FIELDS,
        path: this.#indexPath,
        error: String(error),
      });
      return undefined;
    }
    const json = scanLines(buffer, 0).lines[0]?.json;
    return json === undefined ? undefined : (JSON.parse(json) as StoredRecord);
  }

  async #loadIndex(): Promise<void> {
    let checked = await checkLog(this.#indexPath, this.#corrupt, this.#logger);
    const first = checked.lines[0];
    if (first !== undefined && first.json !== HEADER) {
      const aside = await setAside(this.#indexPath, this.#corrupt);
      this.#logger.error('run store index is not one this agentd reads: set aside, starting afresh', {
        ...FIELDS,
        path: this.#indexPath,
        setAside: aside,
      });
      checked = { lines: [], size: 0 };
    }
    this.#indexSize = checked.size;
    this.#indexLines = checked.lines.length;
    for (const line of checked.lines.slice(1)) {
      const value = JSON.parse(line.json) as { $deleted?: unknown };
      if (typeof value.$deleted === 'string') {
        this.#index.remove(value.$deleted);
        continue;
      }
      if (!validRecord(value)) continue;
      const entry = this.#index.upsert(value);
      entry.loc = { offset: line.offset, length: line.length };
    }
  }

  async #loadEventSizes(): Promise<void> {
    let orphans = 0;
    for (const name of await readdir(this.#eventsDir)) {
      const runId = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : undefined;
      const entry = runId === undefined ? undefined : this.#index.get(runId);
      const path = join(this.#eventsDir, name);
      if (entry === undefined || entry.runId !== runId) {
        // Events of a run whose record was removed (or never written): nothing can reach them.
        await unlink(path).catch(() => {});
        orphans++;
        continue;
      }
      entry.eventBytes = (await stat(path)).size;
      this.#eventBytes += entry.eventBytes;
    }
    if (orphans > 0)
      this.#logger.info('removed event logs without a run record', { ...FIELDS, count: orphans });
  }

  async #checkEvents(entry: IndexEntry): Promise<void> {
    const path = join(this.#eventsDir, `${entry.runId}.jsonl`);
    try {
      const checked = await checkLog(path, this.#corrupt, this.#logger);
      this.#eventBytes += checked.size - entry.eventBytes;
      entry.eventBytes = checked.size;
    } catch (error) {
      this.#down(error, path);
    }
  }

  // --- upkeep ---

  /** Rewrites the index with one line per run (through a synced temporary file and a rename). */
  async #compact(): Promise<void> {
    const tmp = `${this.#indexPath}.tmp`;
    const lines: Buffer[] = [encodeLine(HEADER)];
    const entries = this.#index
      .entries()
      .filter((entry) => entry.full !== undefined || entry.loc !== undefined);
    for (const entry of entries) {
      const record = entry.full ?? (await this.#readRecord(entry));
      lines.push(encodeLine(JSON.stringify(record ?? entry.summary)));
    }
    const out = await open(tmp, 'w', 0o600);
    try {
      await out.write(Buffer.concat(lines));
      await out.sync();
    } finally {
      await out.close();
    }
    await this.#indexFile?.close().catch(() => {});
    await rename(tmp, this.#indexPath);
    await syncDir(this.#history);
    this.#indexFile = await open(this.#indexPath, 'a', 0o600);
    let offset = (lines[0] as Buffer).length;
    entries.forEach((entry, i) => {
      const length = (lines[i + 1] as Buffer).length;
      entry.loc = { offset, length };
      entry.full = undefined;
      offset += length;
    });
    this.#indexSize = offset;
    this.#indexLines = lines.length;
  }

  /** Removes runs past the bounds, oldest first. `cheap`: skip unless a count or size bound is passed. */
  async #applyRetention(now: number, cheap = false): Promise<void> {
    if (this.#disabled || this.#indexFile === undefined) return;
    const bytes = this.#indexSize + this.#eventBytes;
    if (cheap && bytes <= this.#limits.maxBytes && this.#index.size <= this.#limits.maxRuns) return;
    const victims = retentionVictims(this.#index.entries(), bytes, this.#limits, now);
    if (victims.length === 0) return;
    for (const victim of victims) {
      this.#index.remove(victim.runId);
      this.#readAt.delete(victim.runId);
      const file = this.#files.get(victim.runId);
      if (file !== undefined) await this.#closeFile(victim.runId, file, false);
      await unlink(join(this.#eventsDir, `${victim.runId}.jsonl`)).catch(() => {});
      this.#eventBytes -= victim.eventBytes;
    }
    const tombstones = victims.map((victim) => encodeLine(JSON.stringify({ $deleted: victim.runId })));
    await this.#appendIndex(tombstones, () => {});
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

async function syncDir(path: string): Promise<void> {
  // A rename is durable once its directory is synced; not every file system allows it.
  const handle = await open(path, 'r').catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close();
}
