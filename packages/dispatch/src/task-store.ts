/**
 * Where task state lives: an async interface (so a shared store such as Redis can back it) and the
 * in-memory default. Every task is bound to the principal (`owner`) that created it: a lookup with
 * another owner finds nothing, exactly as if the id did not exist.
 */
import type { Era, TaskInfo, TaskStatus } from '@agentd/lifecycle';
import { isTerminalTaskStatus } from '@agentd/lifecycle';
import type { JsonObject, JsonRpcErrorObject } from '@agentd/rpc-frame';

/** One stored task: the wire facts plus what the server needs to answer for it. */
export interface TaskRecord extends TaskInfo {
  /** The principal that created the task (`origin:principal`). */
  readonly owner: string;
  /** The era of the call that created it (decides the shapes and which methods see it). */
  readonly era: Era;
  /** The method the task augments (`tools/call`). */
  readonly method: string;
  /** Outstanding client input while `input_required`: key -> `{method, params}`. */
  readonly inputRequests?: Readonly<Record<string, JsonObject>> | undefined;
  /** `completed` (and a 2025-11-25 `failed` tool call): the result of the augmented request. */
  readonly result?: JsonObject | undefined;
  /** `failed`: the JSON-RPC error of the augmented request. */
  readonly error?: JsonRpcErrorObject | undefined;
  /** Epoch ms after which the task is expired (absent: never). */
  readonly expiresAt?: number | undefined;
  /** The connection that created it (a 2025-11-25 session gets its status notifications), wherever it is served. */
  readonly creator?: string | undefined;
}

export interface TaskInit {
  owner: string;
  era: Era;
  method: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  statusMessage?: string;
  creator?: string;
}

/** A status change; terminal statuses carry `result` (completed) or `error` (failed). */
export interface TaskChange {
  status: TaskStatus;
  statusMessage?: string | undefined;
  inputRequests?: Readonly<Record<string, JsonObject>> | undefined;
  result?: JsonObject | undefined;
  error?: JsonRpcErrorObject | undefined;
}

export interface TaskPage {
  tasks: TaskRecord[];
  /** The last task id served; pass it back as `after` for the next page. */
  nextAfter?: string;
}

export interface TaskStore {
  /** Creates a `working` task; resolves once a `get` for its id would find it (durable create). */
  create(init: TaskInit): Promise<TaskRecord>;
  /** The task if it exists and belongs to `owner` (expired tasks are returned until purged). */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined>;
  /**
   * Applies a change unless the task is terminal (terminal tasks never change: the stored record is
   * returned as is). Undefined when missing or foreign.
   */
  update(taskId: string, owner: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /** The owner's tasks in a stable order, after the id `after`. */
  list(owner: string, options: { after?: string; limit: number; era?: Era }): Promise<TaskPage>;
  /** Forgets a task (after expiry). */
  delete(taskId: string, owner: string): Promise<void>;
  /**
   * A store shared with other processes: calls `listener` with the new status after any process
   * changed the task (so a blocked `tasks/result` wakes, and a cancel reaches the process running
   * the task). Returns the unsubscribe. Without it, only this process's own writes wake waiters.
   */
  watch?(taskId: string, listener: (status: TaskStatus) => void): () => void;
  /**
   * A store shared with other processes: hands client input answers (`tasks/update`) that reached
   * this process to the process running the task (its `onInput`). At most once.
   */
  sendInput?(taskId: string, responses: JsonObject): Promise<void>;
  /** Receives the answers other processes `sendInput` for a task this process runs; returns the unsubscribe. */
  onInput?(taskId: string, listener: (responses: JsonObject) => void): () => void;
  /** Stops timers; the store may not be used afterwards. */
  close?(): Promise<void>;
}

/** A new `working` record for `init` at `now` (every store builds it the same way). */
export function newTaskRecord(init: TaskInit, now: number): TaskRecord {
  return {
    taskId: newTaskId(),
    owner: init.owner,
    era: init.era,
    method: init.method,
    status: 'working',
    statusMessage: init.statusMessage,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: init.ttlMs,
    pollIntervalMs: init.pollIntervalMs,
    expiresAt: init.ttlMs === null ? undefined : now + init.ttlMs,
    creator: init.creator,
  };
}

/**
 * `record` after `change` at `now`; a terminal record is returned as is (terminal tasks never
 * change). Stores apply it atomically against the record they hold.
 */
export function applyTaskChange(record: TaskRecord, change: TaskChange, now: number): TaskRecord {
  if (isTerminalTaskStatus(record.status)) return record;
  return {
    ...record,
    status: change.status,
    statusMessage: change.statusMessage,
    lastUpdatedAt: now,
    inputRequests: change.status === 'input_required' ? change.inputRequests : undefined,
    // A failed 2025-11-25 tool task keeps its isError result for tasks/result.
    result: change.status === 'completed' || change.status === 'failed' ? change.result : undefined,
    error: change.status === 'failed' ? change.error : undefined,
  };
}

export interface MemoryTaskStoreOptions {
  /** Clock (epoch ms); tests drive TTL expiry with it. */
  now?: () => number;
  /** How long an expired task is kept (answering "Task has expired") before it is purged. Default 60 s. */
  retainExpiredMs?: number;
  /** Purge sweep period. Default 30 s. */
  sweepIntervalMs?: number;
  /** Most tasks one owner may hold at once (oldest terminal ones are evicted first). Default 1 000. */
  maxTasksPerOwner?: number;
}

/** A 128-bit random id: task ids are bearer-like, so they must not be guessable. */
export function newTaskId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The in-memory default: one process, lost on restart. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #now: () => number;
  readonly #retainExpiredMs: number;
  readonly #maxPerOwner: number;
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#retainExpiredMs = options.retainExpiredMs ?? 60_000;
    this.#maxPerOwner = options.maxTasksPerOwner ?? 1_000;
    this.#sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 30_000);
    // Workers (workerd, Deno's web timers) hand back a plain number: nothing to unref there.
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  get size(): number {
    return this.#tasks.size;
  }

  async create(init: TaskInit): Promise<TaskRecord> {
    this.#makeRoom(init.owner);
    const record = newTaskRecord(init, this.#now());
    this.#tasks.set(record.taskId, record);
    return record;
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = this.#tasks.get(taskId);
    return record !== undefined && record.owner === owner ? record : undefined;
  }

  async update(taskId: string, owner: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const record = this.#tasks.get(taskId);
    if (record === undefined || record.owner !== owner) return undefined;
    const next = applyTaskChange(record, change, this.#now());
    if (next !== record) this.#tasks.set(taskId, next);
    return next;
  }

  async list(owner: string, options: { after?: string; limit: number; era?: Era }): Promise<TaskPage> {
    // Map order is creation order, which is stable while tasks come and go.
    const mine = [...this.#tasks.values()].filter(
      (t) => t.owner === owner && (options.era === undefined || t.era === options.era),
    );
    let start = 0;
    if (options.after !== undefined) {
      const at = mine.findIndex((t) => t.taskId === options.after);
      start = at === -1 ? mine.length : at + 1;
    }
    const tasks = mine.slice(start, start + options.limit);
    const last = tasks.at(-1);
    return start + tasks.length < mine.length && last !== undefined
      ? { tasks, nextAfter: last.taskId }
      : { tasks };
  }

  async delete(taskId: string, owner: string): Promise<void> {
    if (this.#tasks.get(taskId)?.owner === owner) this.#tasks.delete(taskId);
  }

  /** Purges tasks expired for longer than `retainExpiredMs`. */
  sweep(): void {
    const cutoff = this.#now() - this.#retainExpiredMs;
    for (const [id, record] of this.#tasks) {
      if (record.expiresAt !== undefined && record.expiresAt <= cutoff) this.#tasks.delete(id);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
  }

  #makeRoom(owner: string): void {
    let count = 0;
    let oldestTerminal: string | undefined;
    for (const record of this.#tasks.values()) {
      if (record.owner !== owner) continue;
      count++;
      if (oldestTerminal === undefined && isTerminalTaskStatus(record.status)) oldestTerminal = record.taskId;
    }
    if (count < this.#maxPerOwner) return;
    if (oldestTerminal !== undefined) {
      this.#tasks.delete(oldestTerminal);
      return;
    }
    throw new TaskLimitError(this.#maxPerOwner);
  }
}

/** Thrown by `create` when an owner already holds the most live tasks allowed. */
export class TaskLimitError extends Error {
  override name = 'TaskLimitError';
  constructor(readonly limit: number) {
    super(`too many tasks: at most ${limit} per principal`);
  }
}
