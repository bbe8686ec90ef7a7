/** The in-memory TaskStore: one process, lost on restart. */
import type { Era } from '@agentd/lifecycle';
import { isTerminalTaskStatus } from '@agentd/lifecycle/tasks';
import { tasksError } from './local-errors.js';
import {
  applyTaskChange,
  newTaskRecord,
  type TaskChange,
  type TaskInit,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';

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
    // The seam's `task_limit` LocalError: every store refuses the same way.
    throw tasksError('task_limit', `too many tasks: at most ${this.#maxPerOwner} per principal`);
  }
}
