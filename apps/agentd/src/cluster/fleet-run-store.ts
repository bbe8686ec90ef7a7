/**
 * The fleet's run store: the embedded store's semantics (history-types.ts `RunStore`) kept in the
 * fleet's Redis, so every replica reads every run's record and whole event log, after any of them
 * (or all) restarted.
 *
 * - Each run is a hash (its whole last record, its summary, liveness, size) and a list of its
 *   events (`seq` is the position + 1, so a log has no gap by construction); a sorted set orders
 *   the runs by start, another the finished ones (what retention removes, oldest first).
 * - Writes are batched per tick: one script per run carries its events and its last record, so a
 *   record never names more than its log holds.
 * - Runs an instance recorded live are in its `live` set. When the instance dies (its lease key
 *   lapses) a survivor marks them `lost`, with the events they had; a restarted instance with a
 *   fixed id marks its own at start. `lost` is final: a late write of a replica declared dead is refused.
 * - Redis unreachable: runs go on; the store says once, at error, that history is not being kept,
 *   keeps the last record of each run of this process to write when Redis is back, drops events.
 */
import { type JsonObject, LocalError, type Logger } from '@agentd/rpc-frame';
import { eventJson, recordCopy } from '../history/event-json.js';
import { HISTORY_DEFAULTS, type HistoryConfig } from '../history/history-config.js';
import { isLive, matches, searchText, summarise } from '../history/history-index.js';
import type {
  EventPage,
  EventQuery,
  ListQuery,
  RunPage,
  RunStore,
  RunSummary,
  StoredEvent,
  StoredRecord,
  StoreInfo,
} from '../history/history-types.js';
import { lostRecord } from '../history/lost-record.js';
import { RUN_ID, validRecord } from '../history/run-store-file.js';
import type { AgentdErrorCode } from '../local-errors.js';
import type { ClusterKeys, HistoryKeys } from './cluster-keys.js';
import { applyFleetRetention } from './fleet-history-retention.js';
import { WRITE_RUN } from './fleet-history-scripts.js';
import { type FleetRedis, strings, text } from './fleet-redis.js';

export interface FleetRunStoreOptions {
  redis: FleetRedis;
  keys: ClusterKeys;
  instanceId: string;
  leaseTtlMs: number;
  retention?: Partial<HistoryConfig>;
  logger: Logger;
}

const FIELDS = { component: 'history' };
const RETENTION_EVERY_MS = 60 * 60 * 1000;
/** Another replica held retention: look again after this. */
const RETENTION_RETRY_MS = 1000;
/** Redis's Lua stack holds a few thousand arguments: a long batch goes in chunks. */
const EVENTS_PER_WRITE = 1000;
/** Runs fetched per round trip while listing. */
const LIST_CHUNK = 200;
/** Events waiting for Redis beyond this are dropped (and that is reported). */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;

interface Pending {
  record: StoredRecord | undefined;
  events: string[];
}

/** The member that orders runs by start, then run id (the file store's order). */
function sortKey(record: StoredRecord): string {
  const ms = Math.max(0, Date.parse(record.startedAt));
  return `${String(ms).padStart(15, '0')}:${record.runId}`;
}

function startOf(member: string): number {
  return Number(member.slice(0, 15));
}

/** Summary and search text, as one hash field. */
interface StoredSummary {
  s: RunSummary;
  q: string;
}

export async function openFleetRunStore(options: FleetRunStoreOptions): Promise<FleetRunStore> {
  const store = new FleetRunStore(options);
  await store.open();
  return store;
}

export class FleetRunStore implements RunStore {
  readonly dir: string;
  readonly #o: FleetRunStoreOptions;
  readonly #k: HistoryKeys;
  readonly #limits: HistoryConfig;
  readonly #pending = new Map<string, Pending>();
  /** Last records of this process's runs that Redis has not taken yet (written when it is back). */
  readonly #unsaved = new Map<string, StoredRecord>();
  #pendingBytes = 0;
  #chain: Promise<void> = Promise.resolve();
  #scheduled = false;
  #keeping = true;
  #closed = false;
  #runs = 0;
  #bytes = 0;
  #timers: NodeJS.Timeout[] = [];
  #offReady: (() => void) | undefined;

  constructor(options: FleetRunStoreOptions) {
    this.#o = options;
    this.#k = options.keys.history;
    this.#limits = { ...HISTORY_DEFAULTS, ...options.retention };
    this.dir = `redis:${this.#k.runs.slice(0, -'runs'.length)}`;
  }

  async open(): Promise<void> {
    // Redis answered the link's connect a moment ago: a failure here is not a reason to refuse to start.
    await this.#retain(Date.now(), false);
    await this.sweepDead();
    const every = (ms: number, task: () => Promise<unknown>) => {
      const timer = setInterval(() => void task(), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(RETENTION_EVERY_MS, () => this.#retain(Date.now(), false));
    every(Math.max(100, Math.floor(this.#o.leaseTtlMs / 2)), () => this.sweepDead());
    this.#offReady = this.#o.redis.onReady(() => {
      if (this.#unsaved.size > 0) this.#schedule();
    });
  }

  recordRun(record: StoredRecord): void {
    if (this.#closed) return;
    const copy = recordCopy(record, this.#o.logger);
    if (copy === undefined) return;
    if (!validRecord(copy)) {
      this.#o.logger.warn('run record not stored: it needs handle, runId, state and startedAt', FIELDS);
      return;
    }
    // Which replica ran it: the one whose death makes it lost.
    copy.instance ??= this.#o.instanceId;
    this.#entry(copy.runId).record = copy;
    this.#unsaved.delete(copy.runId);
    this.#schedule();
  }

  appendEvent(runId: string, event: JsonObject): void {
    if (this.#closed) return;
    if (!RUN_ID.test(runId)) {
      this.#o.logger.warn('run event not stored: invalid run id', FIELDS);
      return;
    }
    const json = eventJson(event, runId, this.#o.logger);
    if (json === undefined) return;
    if (this.#pendingBytes + json.length > MAX_PENDING_BYTES) {
      this.#down(new Error('Redis is not keeping up: events dropped'));
      return;
    }
    const line = `{"at":"${new Date().toISOString()}","event":${json}}`;
    this.#entry(runId).events.push(line);
    this.#pendingBytes += line.length;
    this.#schedule();
  }

  async get(runIdOrHandle: string): Promise<StoredRecord | undefined> {
    await this.flush();
    const { redis } = this.#o;
    const byHandle = text(await redis.command(['GET', this.#k.handle(runIdOrHandle)]));
    const runId = byHandle ?? runIdOrHandle;
    if (!RUN_ID.test(runId)) return undefined;
    const json = text(await redis.command(['HGET', this.#k.run(runId), 'record']));
    const record = json === undefined ? undefined : parse<StoredRecord>(json);
    return record ?? this.#unsavedRecord(runIdOrHandle);
  }

  async events(runId: string, query: EventQuery = {}): Promise<EventPage> {
    if (!RUN_ID.test(runId)) return { events: [] };
    await this.flush();
    const after = Math.max(0, Math.trunc(query.after ?? 0));
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 1000), 1), 10_000);
    const key = this.#k.events(runId);
    const lines = strings(await this.#o.redis.command(['LRANGE', key, after, after + limit - 1]));
    const events: StoredEvent[] = [];
    lines.forEach((line, i) => {
      const parsed = parse<{ at: string; event: JsonObject }>(line);
      if (parsed !== undefined) events.push({ seq: after + i + 1, at: parsed.at, event: parsed.event });
    });
    const next = after + lines.length;
    const total = Number(await this.#o.redis.command(['LLEN', key]));
    return next < total ? { events, next } : { events };
  }

  async list(query: ListQuery = {}): Promise<RunPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), 1000);
    let from = '+';
    if (query.cursor !== undefined) {
      const member = decodeCursor(query.cursor);
      if (member === undefined)
        throw new LocalError<AgentdErrorCode>(
          'invalid_request',
          'invalid cursor: pass the nextCursor of a previous page',
        );
      from = `(${member}`;
    }
    await this.flush();
    const sinceMs = query.since?.getTime();
    const textQuery = query.text === undefined || query.text === '' ? undefined : query.text.toLowerCase();
    const runs: RunSummary[] = [];
    let last: string | undefined;
    for (;;) {
      const members = strings(
        await this.#o.redis.command(['ZREVRANGEBYLEX', this.#k.runs, from, '-', 'LIMIT', 0, LIST_CHUNK]),
      );
      const summaries = await Promise.all(
        members.map((m) => this.#o.redis.command(['HGET', this.#k.run(runIdOf(m)), 'summary'])),
      );
      for (const [i, member] of members.entries()) {
        const startedMs = startOf(member);
        // Newest first: everything further on started earlier.
        if (sinceMs !== undefined && startedMs < sinceMs) return { runs };
        const stored = parse<StoredSummary>(text(summaries[i]) ?? '');
        if (stored === undefined) continue;
        if (!matches({ summary: stored.s, search: stored.q, startedMs }, query, sinceMs, textQuery)) continue;
        if (runs.length === limit) return { runs, nextCursor: encodeCursor(last as string) };
        runs.push(stored.s);
        last = member;
      }
      if (members.length < LIST_CHUNK) return { runs };
      from = `(${members[members.length - 1]}`;
    }
  }

  /** Runs this instance id left live in an earlier process (a restart with a fixed `instanceId`). */
  async markLiveRunsLost(now = new Date()): Promise<StoredRecord[]> {
    const message = `agentd (instance ${this.#o.instanceId}) stopped while the run was live; its outcome is unknown`;
    try {
      return await this.#markLost(this.#o.instanceId, now, message);
    } catch (error) {
      this.#o.logger.warn('runs left live by an earlier process not marked lost yet', {
        ...FIELDS,
        error: String(error),
      });
      return [];
    }
  }

  /**
   * Marks the live runs of every instance whose lease lapsed as `lost`; one replica claims each
   * dead instance. Never rejects (a failure is logged; the next sweep tries again).
   */
  async sweepDead(now = new Date()): Promise<number> {
    const { redis, keys, instanceId, leaseTtlMs } = this.#o;
    let marked = 0;
    try {
      for (const instance of strings(await redis.command(['SMEMBERS', this.#k.instances]))) {
        if (instance === instanceId) continue;
        if ((await redis.command(['EXISTS', keys.lease(instance)])) === 1) continue;
        const claimed = await redis.command([
          'SET',
          this.#k.sweep(instance),
          instanceId,
          'NX',
          'PX',
          leaseTtlMs,
        ]);
        if (claimed === null) continue;
        const message = `instance ${instance} stopped renewing its lease before the run ended; its outcome is unknown`;
        const lost = await this.#markLost(instance, now, message);
        marked += lost.length;
        if (lost.length > 0)
          this.#o.logger.warn('runs of a dead instance marked lost in the history', {
            ...FIELDS,
            instance,
            lost: lost.map((r) => r.runId),
          });
      }
    } catch (error) {
      this.#o.logger.debug('history sweep failed', { ...FIELDS, error: String(error) });
    }
    return marked;
  }

  async #markLost(instance: string, now: Date, message: string): Promise<StoredRecord[]> {
    const { redis } = this.#o;
    const liveKey = this.#k.live(instance);
    const lost: StoredRecord[] = [];
    for (const runId of strings(await redis.command(['SMEMBERS', liveKey]))) {
      const json = text(await redis.command(['HGET', this.#k.run(runId), 'record']));
      const record = json === undefined ? undefined : parse<StoredRecord>(json);
      if (record === undefined || !isLive(record)) {
        await redis.command(['SREM', liveKey, runId]);
        continue;
      }
      const ended = lostRecord(record, now, message);
      if (await this.#write(runId, ended, [])) lost.push(ended);
    }
    if (Number(await redis.command(['SCARD', liveKey])) === 0)
      await redis.command(['SREM', this.#k.instances, instance]);
    return lost;
  }

  flush(): Promise<void> {
    this.#scheduled = false;
    const run = this.#chain.then(() => this.#writeBatch());
    this.#chain = run;
    return run;
  }

  info(): StoreInfo {
    return { dir: this.dir, runs: this.#runs, bytes: this.#bytes, keeping: this.#keeping };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#offReady?.();
    await this.flush();
    this.#closed = true;
  }

  #entry(runId: string): Pending {
    let entry = this.#pending.get(runId);
    if (entry === undefined) {
      entry = { record: undefined, events: [] };
      this.#pending.set(runId, entry);
    }
    return entry;
  }

  #unsavedRecord(runIdOrHandle: string): StoredRecord | undefined {
    const byId = this.#unsaved.get(runIdOrHandle);
    if (byId !== undefined) return structuredClone(byId);
    for (const record of this.#unsaved.values())
      if (record.handle === runIdOrHandle) return structuredClone(record);
    return undefined;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      if (this.#scheduled) void this.flush();
    });
  }

  /** Never rejects: a failed write is reported (once) and its record kept for later. */
  async #writeBatch(): Promise<void> {
    const batch = [...this.#pending];
    this.#pending.clear();
    this.#pendingBytes = 0;
    // Records Redis did not take earlier, unless a newer one is in this batch.
    for (const [runId, record] of this.#unsaved) {
      const entry = batch.find(([id]) => id === runId)?.[1];
      if (entry === undefined) batch.push([runId, { record, events: [] }]);
      else entry.record ??= record;
    }
    this.#unsaved.clear();
    if (batch.length === 0) return;
    let failed = false;
    let ended = false;
    await Promise.all(
      batch.map(async ([runId, { record, events }]) => {
        try {
          await this.#write(runId, record, events);
          if (record !== undefined && !isLive(record)) ended = true;
        } catch (error) {
          failed = true;
          if (record !== undefined) this.#unsaved.set(runId, record);
          this.#down(error);
        }
      }),
    );
    if (failed) return;
    this.#up();
    if (ended) await this.#retain(Date.now(), true);
  }

  /** One run's events and record; false when Redis refused it (the run was marked lost). */
  async #write(runId: string, record: StoredRecord | undefined, events: readonly string[]): Promise<boolean> {
    const k = this.#k;
    const instance = this.#o.instanceId;
    const head: string[] =
      record === undefined
        ? ['0', '', '', '', '', '', '', instance, runId, '']
        : [
            '1',
            JSON.stringify(record),
            JSON.stringify({ s: summarise(record), q: searchText(record) } satisfies StoredSummary),
            sortKey(record),
            record.handle,
            isLive(record) ? '0' : '1',
            typeof record.endedAt === 'string' ? String(Date.parse(record.endedAt)) : '',
            String(record.instance ?? instance),
            runId,
            record.state,
          ];
    const keys = [
      k.run(runId),
      k.events(runId),
      k.runs,
      k.done,
      record === undefined ? k.handle('') : k.handle(record.handle),
      k.live(String(record?.instance ?? instance)),
      k.instances,
      k.bytes,
    ];
    let written = true;
    // Every chunk carries the record: a new run's events need it, and writing it again changes nothing.
    for (let i = 0; i === 0 || i < events.length; i += EVENTS_PER_WRITE) {
      const chunk = events.slice(i, i + EVENTS_PER_WRITE);
      const reply = await this.#o.redis.command(['EVAL', WRITE_RUN, keys.length, ...keys, ...head, ...chunk]);
      if (reply !== 1) written = false;
    }
    return written;
  }

  /** Retention, by one replica at a time (see fleet-history-retention.ts). Never rejects. */
  async #retain(now: number, cheap: boolean): Promise<void> {
    try {
      const state = await applyFleetRetention(this.#o.redis, this.#k, this.#limits, now, {
        cheap,
        holder: this.#o.instanceId,
      });
      this.#runs = state.runs;
      this.#bytes = state.bytes;
      if (state.removed > 0)
        this.#o.logger.info('old runs removed from history', { ...FIELDS, count: state.removed });
      // The holder may have looked before our last write: look again once it is done.
      if (state.busy && cheap && !this.#closed) {
        const retry = setTimeout(() => {
          this.#timers.splice(this.#timers.indexOf(retry), 1);
          void this.#retain(Date.now(), true);
        }, RETENTION_RETRY_MS);
        retry.unref();
        this.#timers.push(retry);
      }
    } catch (error) {
      this.#o.logger.warn('history retention failed; it runs again later', {
        ...FIELDS,
        error: String(error),
      });
    }
  }

  #down(error: unknown): void {
    if (!this.#keeping) return;
    this.#keeping = false;
    this.#o.logger.error(
      'history is not being kept: runs go on, but their records and events are not saved',
      {
        ...FIELDS,
        store: this.dir,
        error: error instanceof Error ? error.message : String(error),
      },
    );
  }

  #up(): void {
    if (this.#keeping) return;
    this.#keeping = true;
    this.#o.logger.warn('history is being kept again', { ...FIELDS, store: this.dir });
  }
}

function runIdOf(member: string): string {
  return member.slice(16);
}

function parse<T>(json: string): T | undefined {
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === 'object' && value !== null ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

function encodeCursor(member: string): string {
  return Buffer.from(member).toString('base64url');
}

function decodeCursor(cursor: string): string | undefined {
  const member = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^[0-9]{15}:[A-Za-z0-9_-]{1,128}$/.test(member) ? member : undefined;
}
