/**
 * The TaskStore seam (`@agentd/server`) on Redis: every replica reads, waits on and cancels any task. A task is one
 * JSON string key (expiring `retainExpiredMs` after the task does), listed per owner through a
 * sorted set in creation order; writes are atomic scripts, so a terminal task never changes and
 * concurrent writers never interleave. Every change is announced on a channel (`watch`), which
 * wakes a blocked `tasks/result` anywhere and stops the work on the replica running a cancelled task.
 */

import type { Era } from '@agentd/lifecycle';
import type { TaskStatus } from '@agentd/lifecycle/tasks';
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import {
  applyTaskChange,
  newTaskRecord,
  type TaskChange,
  type TaskInit,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
} from '@agentd/tasks';
import { redisError } from './local-errors.js';
import { clientsOf, type RedisClient } from './raw-client.js';
import type { RedisConnection } from './redis-connection.js';
import { CREATE_TASK, DELETE_TASK, UPDATE_TASK } from './task-scripts.js';

export interface RedisTaskStoreOptions {
  /** Key prefix of this store. Default `<connection prefix>tasks:`. */
  prefix?: string;
  /** Clock (epoch ms). */
  now?: () => number;
  /** How long an expired task is kept (answering "Task has expired") before Redis drops it. Default 60 s. */
  retainExpiredMs?: number;
  /** Most tasks one owner may hold at once (oldest terminal ones are evicted first). Default 1 000. */
  maxTasksPerOwner?: number;
}

const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const MAX_CAS_ATTEMPTS = 16;
const LIST_BATCH = 100;

export class RedisTaskStore implements TaskStore {
  readonly #connection: RedisConnection;
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #retainExpiredMs: number;
  readonly #maxPerOwner: number;
  readonly #watchers = new Map<string, Set<(status: TaskStatus) => void>>();
  readonly #inputListeners = new Map<string, Set<(responses: JsonObject) => void>>();
  #closed = false;
  #unsubscribe: (() => Promise<void>)[] = [];

  private constructor(connection: RedisConnection, options: RedisTaskStoreOptions) {
    this.#connection = connection;
    this.#client = clientsOf(connection).client;
    this.#prefix = options.prefix ?? `${connection.prefix}tasks:`;
    this.#now = options.now ?? Date.now;
    this.#retainExpiredMs = options.retainExpiredMs ?? 60_000;
    this.#maxPerOwner = options.maxTasksPerOwner ?? 1_000;
    for (const [name, value] of [
      ['retainExpiredMs', this.#retainExpiredMs],
      ['maxTasksPerOwner', this.#maxPerOwner],
    ] as const) {
      if (!(Number.isSafeInteger(value) && value > 0))
        throw redisError('invalid_option', `${name} must be a positive integer`);
    }
  }

  /** A store on `connection`, subscribed to the change channel before it resolves. */
  static async create(
    connection: RedisConnection,
    options: RedisTaskStoreOptions = {},
  ): Promise<RedisTaskStore> {
    const store = new RedisTaskStore(connection, options);
    store.#unsubscribe = await Promise.all([
      connection.subscribe(store.#channel, (message) => store.#changed(message)),
      connection.subscribe(store.#inputChannel, (message) => store.#input(message)),
    ]);
    return store;
  }

  get #channel(): string {
    return `${this.#prefix}changed`;
  }

  get #inputChannel(): string {
    return `${this.#prefix}input`;
  }

  #taskKey(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  #ownerKey(owner: string): string {
    return `${this.#prefix}owner:${owner}`;
  }

  async create(init: TaskInit): Promise<TaskRecord> {
    const record = newTaskRecord(init, this.#now());
    const expireAt = record.expiresAt === undefined ? 0 : record.expiresAt + this.#retainExpiredMs;
    try {
      await CREATE_TASK.run(
        this.#client,
        [this.#taskKey(record.taskId), this.#ownerKey(init.owner), `${this.#prefix}seq`],
        [
          JSON.stringify(record),
          String(this.#maxPerOwner),
          String(expireAt),
          record.taskId,
          `${this.#prefix}task:`,
        ],
      );
    } catch (error) {
      if (String((error as Error).message).includes('TASK_LIMIT'))
        throw redisError('task_limit', `too many tasks: at most ${this.#maxPerOwner} per principal`);
      throw error;
    }
    return record;
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const raw = await this.#client.get(this.#taskKey(taskId));
    const record = raw === null ? undefined : parseRecord(raw);
    return record !== undefined && record.owner === owner ? record : undefined;
  }

  async update(taskId: string, owner: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const client = this.#client;
    const key = this.#taskKey(taskId);
    let raw = await client.get(key);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const record = raw === null ? undefined : parseRecord(raw);
      if (raw === null || record === undefined || record.owner !== owner) return undefined;
      const next = applyTaskChange(record, change, this.#now());
      if (next === record) return record; // terminal: never changes
      const written = await UPDATE_TASK.run(
        client,
        [key],
        [raw, JSON.stringify(next), this.#channel, `${taskId} ${next.status}`],
      );
      if (written === 1) return next;
      if (written === -1) return undefined;
      raw = await client.get(key); // changed meanwhile: apply the change to what is there now
    }
    throw redisError('task_conflict', `task ${taskId} kept changing under ${MAX_CAS_ATTEMPTS} writes`);
  }

  async list(owner: string, options: { after?: string; limit: number; era?: Era }): Promise<TaskPage> {
    const client = this.#client;
    const index = this.#ownerKey(owner);
    let min = '-inf';
    if (options.after !== undefined) {
      const score = await client.zScore(index, options.after);
      // The cursor's task is gone: nothing after it can be placed (the in-memory store agrees).
      if (score === null) return { tasks: [] };
      min = `(${score}`;
    }
    const tasks: TaskRecord[] = [];
    let more = false;
    for (;;) {
      const ids = (await client.sendCommand([
        'ZRANGEBYSCORE',
        index,
        min,
        '+inf',
        'LIMIT',
        '0',
        String(LIST_BATCH),
      ])) as string[];
      if (ids.length === 0) break;
      const raws = await client.mGet(ids.map((id) => this.#taskKey(id)));
      const vanished: string[] = [];
      for (const [i, id] of ids.entries()) {
        const raw = raws[i];
        const record = raw === null || raw === undefined ? undefined : parseRecord(raw);
        if (record === undefined) {
          vanished.push(id);
          continue;
        }
        if (record.owner !== owner || (options.era !== undefined && record.era !== options.era)) continue;
        if (tasks.length === options.limit) {
          more = true;
          break;
        }
        tasks.push(record);
      }
      if (more || ids.length < LIST_BATCH) {
        if (vanished.length > 0) await client.zRem(index, vanished);
        break;
      }
      const lastScore = await client.zScore(index, ids.at(-1) as string);
      if (vanished.length > 0) await client.zRem(index, vanished);
      if (lastScore === null) break;
      min = `(${lastScore}`;
    }
    const last = tasks.at(-1);
    return more && last !== undefined ? { tasks, nextAfter: last.taskId } : { tasks };
  }

  async delete(taskId: string, owner: string): Promise<void> {
    await DELETE_TASK.run(this.#client, [this.#taskKey(taskId), this.#ownerKey(owner)], [owner, taskId]);
  }

  watch(taskId: string, listener: (status: TaskStatus) => void): () => void {
    return addListener(this.#watchers, taskId, listener);
  }

  async sendInput(taskId: string, responses: JsonObject): Promise<void> {
    await this.#client.publish(this.#inputChannel, JSON.stringify({ t: taskId, r: responses }));
  }

  onInput(taskId: string, listener: (responses: JsonObject) => void): () => void {
    return addListener(this.#inputListeners, taskId, listener);
  }

  /** Stops listening for changes (the connection stays open; close it separately). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watchers.clear();
    this.#inputListeners.clear();
    await Promise.all(this.#unsubscribe.map((unsubscribe) => unsubscribe()));
  }

  #input(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      this.#connection.dropMalformed(this.#inputChannel, 'not JSON');
      return;
    }
    if (!isJsonObject(parsed) || typeof parsed.t !== 'string' || !isJsonObject(parsed.r)) {
      this.#connection.dropMalformed(this.#inputChannel, 'not {t: task id, r: responses}');
      return;
    }
    const responses = parsed.r;
    for (const listener of [...(this.#inputListeners.get(parsed.t) ?? [])]) listener(responses);
  }

  #changed(message: string): void {
    const space = message.indexOf(' ');
    const status = message.slice(space + 1);
    if (space <= 0 || !STATUSES.has(status)) {
      this.#connection.dropMalformed(this.#channel, 'not "<task id> <status>"');
      return;
    }
    const listeners = this.#watchers.get(message.slice(0, space));
    for (const listener of [...(listeners ?? [])]) listener(status as TaskStatus);
  }
}

function addListener<T>(
  map: Map<string, Set<(value: T) => void>>,
  taskId: string,
  listener: (value: T) => void,
) {
  let set = map.get(taskId);
  if (set === undefined) {
    set = new Set();
    map.set(taskId, set);
  }
  const listeners = set;
  listeners.add(listener);
  return (): void => {
    listeners.delete(listener);
    if (listeners.size === 0 && map.get(taskId) === listeners) map.delete(taskId);
  };
}

/** A stored record, or undefined for anything that is not one (never trusted blindly: Redis is shared). */
function parseRecord(raw: string): TaskRecord | undefined {
  try {
    const value = JSON.parse(raw) as Partial<TaskRecord> | null;
    if (
      value === null ||
      typeof value !== 'object' ||
      typeof value.taskId !== 'string' ||
      typeof value.owner !== 'string' ||
      typeof value.status !== 'string' ||
      !STATUSES.has(value.status)
    )
      return undefined;
    return value as TaskRecord;
  } catch {
    return undefined;
  }
}
