/**
 * The TaskStore seam: where an MCP server keeps task state, and the two rules every store builds
 * and changes its records by. `MemoryTaskStore` is the in-memory store, `@agentd/redis` has a shared
 * one; `@agentd/dispatch` runs tasks over either. Every task is bound to the principal
 * (`owner`) that created it: a lookup with another owner finds nothing, exactly as if the id did
 * not exist.
 */
import type { Era } from '@agentd/lifecycle';
import { isTerminalTaskStatus, type TaskInfo, type TaskStatus } from '@agentd/lifecycle/tasks';
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
  /**
   * Creates a `working` task; resolves once a `get` for its id would find it (durable create).
   * Rejects with a LocalError coded `task_limit` when the owner already holds the most tasks allowed.
   */
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

/** A new `working` record for `init` at `now`: every store builds it the same way. */
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

/** A 128-bit random id: task ids are bearer-like, so they must not be guessable. */
function newTaskId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
