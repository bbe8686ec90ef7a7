/**
 * The task runtime: decides whether a call becomes a task, keeps the live runs of this process
 * (abort controller, parked client input, TTL timer) and writes every status change to the
 * TaskStore in order. Live runs outlive the connection that started them, until their TTL.
 */
import type { Era } from '@agentd/lifecycle';
import {
  declaresTasksExtension,
  isTerminalTaskStatus,
  legacyVersionHasTasks,
  missingTasksExtension,
  taskRefusal,
} from '@agentd/lifecycle/tasks';
import { isJsonObject, type JsonObject, type Logger, type WireError } from '@agentd/rpc-frame';
import type { Peer, RequestContext } from '@agentd/server';
import { MemoryTaskStore, type TaskChange, type TaskRecord, type TaskStore } from '@agentd/tasks';
import { checkInputResponse } from './input-responses.js';
import { dispatchError } from './local-errors.js';
import type { PendingInput, TaskInputHost } from './task-input.js';
import { type TaskStatusEvent, taskStatusNotification } from './task-notification.js';

/** A tool's part in tasks. */
interface TaskToolOptions {
  /** `optional`: a task when the client can take one, else a normal call; `required`: never a normal call. */
  support: 'optional' | 'required';
  /**
   * `call` (default): the call becomes a task before the handler runs. `handler`: the handler runs
   * as a normal call (multi-round-trip input included) until it calls `ctx.detach()`.
   */
  start?: 'call' | 'handler';
  /** Lifetime of the task from creation (null: unlimited). Default: the dispatcher's `tasks.defaultTtlMs`. */
  ttlMs?: number | null;
  pollIntervalMs?: number;
}

export type ToolTaskSupport = 'optional' | 'required' | TaskToolOptions;

export interface TasksOptions {
  /** Where tasks are kept (default: in memory). */
  store?: TaskStore;
  /** Task lifetime when the tool does not set one. Default 1 hour. */
  defaultTtlMs?: number;
  /** Upper bound for any lifetime, including one a 2025-11-25 client asks for. Default 24 hours. */
  maxTtlMs?: number;
  /** Suggested polling interval. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** Clock (epoch ms), shared with the default store. */
  now?: () => number;
}

export interface ResolvedTaskTool {
  readonly support: 'optional' | 'required';
  readonly start: 'call' | 'handler';
  readonly ttlMs: number | null | undefined;
  readonly pollIntervalMs: number | undefined;
}

export function resolveTaskTool(
  value: ToolTaskSupport | undefined,
  tool: string,
): ResolvedTaskTool | undefined {
  if (value === undefined) return undefined;
  const options = typeof value === 'string' ? { support: value } : value;
  if (options.support !== 'optional' && options.support !== 'required') {
    throw dispatchError('invalid_definition', `tool ${tool}: task support must be 'optional' or 'required'`);
  }
  const start = options.start ?? 'call';
  if (start !== 'call' && start !== 'handler') {
    throw dispatchError('invalid_definition', `tool ${tool}: task start must be 'call' or 'handler'`);
  }
  const ttl = options.ttlMs;
  if (ttl !== undefined && ttl !== null && !(Number.isSafeInteger(ttl) && ttl > 0)) {
    throw dispatchError('invalid_definition', `tool ${tool}: task ttlMs must be a positive integer or null`);
  }
  return Object.freeze({
    support: options.support,
    start,
    ttlMs: ttl,
    pollIntervalMs: options.pollIntervalMs,
  });
}

export type TaskPlan =
  | { kind: 'sync' }
  | { kind: 'task'; start: 'call' | 'handler'; ttlMs: number | null; pollIntervalMs: number };

/** Most calls: one shared answer, not an object per call. */
const SYNC_PLAN: TaskPlan = Object.freeze({ kind: 'sync' });

export interface LiveTask extends TaskInputHost {
  readonly taskId: string;
  readonly owner: string;
  readonly era: Era;
  /** The connection that created the task (its 2025-11-25 session gets the status notifications). */
  readonly creator: string;
  readonly controller: AbortController;
  /** Outstanding client input, in the order it was asked. */
  readonly inputs: Map<string, PendingInput>;
  /** Serialises store writes so they land in the order they happened. */
  chain: Promise<unknown>;
  expiry: ReturnType<typeof setTimeout> | undefined;
  /** Stops watching a shared store for a cancel or input answers from another process. */
  unwatch: (() => void) | undefined;
}

const DEFAULT_TTL_MS = 3_600_000;
const DEFAULT_MAX_TTL_MS = 86_400_000;
const DEFAULT_POLL_MS = 1_000;

export class TaskRuntime {
  readonly store: TaskStore;
  readonly now: () => number;
  readonly #defaultTtl: number;
  readonly #maxTtl: number;
  readonly #poll: number;
  readonly #logger: Logger;
  readonly #ownsStore: boolean;
  readonly #live = new Map<string, LiveTask>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #listeners = new Set<(event: TaskStatusEvent) => void>();

  constructor(options: TasksOptions, logger: Logger) {
    this.now = options.now ?? Date.now;
    this.#ownsStore = options.store === undefined;
    this.store = options.store ?? new MemoryTaskStore({ now: this.now });
    this.#defaultTtl = positive(options.defaultTtlMs ?? DEFAULT_TTL_MS, 'tasks.defaultTtlMs');
    this.#maxTtl = positive(options.maxTtlMs ?? DEFAULT_MAX_TTL_MS, 'tasks.maxTtlMs');
    this.#poll = positive(options.pollIntervalMs ?? DEFAULT_POLL_MS, 'tasks.pollIntervalMs');
    this.#logger = logger;
  }

  /** The principal a task is bound to: the peer's trust domain plus its authenticated principal. */
  ownerOf(peer: Peer): string {
    const principal = peer.attributes.principal;
    return `${peer.origin}:${typeof principal === 'string' ? principal : ''}`;
  }

  /** Whether `context`'s client may use tasks at all (extension declared / 2025-11-25 session). */
  clientTakesTasks(context: RequestContext): boolean {
    return context.era === 'modern'
      ? declaresTasksExtension(context.clientCapabilities)
      : legacyVersionHasTasks(context.protocolVersion);
  }

  /**
   * Modern: server-directed, only for a client that declared the extension on this request
   * (`required` without it is -32021). Legacy 2025-11-25: requestor-driven through `params.task`
   * (`required` without it, or `task` on a tool without task support, is -32601).
   */
  plan(
    tool: { name: string; task: ResolvedTaskTool | undefined },
    params: JsonObject,
    context: RequestContext,
  ): TaskPlan {
    const task = tool.task;
    if (context.era === 'modern') {
      if (task === undefined) return SYNC_PLAN;
      if (!declaresTasksExtension(context.clientCapabilities)) {
        if (task.support === 'required') throw missingTasksExtension();
        return SYNC_PLAN;
      }
      return this.#taskPlan(task, task.start, undefined);
    }
    if (!legacyVersionHasTasks(context.protocolVersion)) return SYNC_PLAN;
    const requested = params.task;
    const asked = isJsonObject(requested);
    if (task === undefined) {
      if (asked) throw taskRefusal.notTaskTool(tool.name);
      return SYNC_PLAN;
    }
    if (!asked) {
      if (task.support === 'required') throw taskRefusal.taskRequired(tool.name);
      return SYNC_PLAN;
    }
    const ttl = requested.ttl;
    // 2025-11-25 tasks are requestor-driven: the task exists before the handler runs.
    return this.#taskPlan(
      task,
      'call',
      typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl > 0 ? ttl : undefined,
    );
  }

  #taskPlan(task: ResolvedTaskTool, start: 'call' | 'handler', requestedTtl: number | undefined): TaskPlan {
    const wanted = requestedTtl ?? (task.ttlMs === undefined ? this.#defaultTtl : task.ttlMs);
    const ttlMs = wanted === null ? null : Math.min(wanted, this.#maxTtl);
    return { kind: 'task', start, ttlMs, pollIntervalMs: task.pollIntervalMs ?? this.#poll };
  }

  /** Creates the stored task and its live run; resolves once `tasks/get` would find it. */
  async begin(
    context: RequestContext,
    method: string,
    plan: Extract<TaskPlan, { kind: 'task' }>,
  ): Promise<{ record: TaskRecord; live: LiveTask }> {
    const owner = this.ownerOf(context.peer);
    const record = await this.store.create({
      owner,
      era: context.era,
      method,
      ttlMs: plan.ttlMs,
      pollIntervalMs: plan.pollIntervalMs,
      creator: context.peer.connectionId,
    });
    const live: LiveTask = {
      taskId: record.taskId,
      owner,
      era: context.era,
      creator: context.peer.connectionId,
      controller: new AbortController(),
      inputs: new Map(),
      usedKeys: new Set(),
      chain: Promise.resolve(),
      expiry: undefined,
      unwatch: undefined,
      park: (key, input) => this.#park(live, key, input),
    };
    this.#live.set(record.taskId, live);
    // A shared store: `tasks/cancel` may arrive at another process; the work runs here, so stop it.
    const unwatch = this.store.watch?.(record.taskId, (status) => {
      if (status === 'cancelled') this.#stopCancelled(live);
    });
    // …and `tasks/update` answers may arrive there too.
    const unlisten = this.store.onInput?.(record.taskId, (responses) => {
      this.answer(
        live,
        responses,
        (input, key, value) => void checkInputResponse(input.method, key, value),
      ).catch((error: unknown) =>
        this.#logger.error('forwarded task input failed', { taskId: live.taskId, error: String(error) }),
      );
    });
    if (unwatch !== undefined || unlisten !== undefined)
      live.unwatch = () => {
        unwatch?.();
        unlisten?.();
      };
    if (plan.ttlMs !== null) {
      // Past its TTL a task is gone: stop the work too.
      live.expiry = setTimeout(() => this.#expire(live), plan.ttlMs);
      live.expiry.unref?.();
    }
    return { record, live };
  }

  /** Records the outcome of the task's work (a result, or a JSON-RPC error as `failed`). */
  finish(live: LiveTask, outcome: { result: JsonObject } | { error: WireError }): Promise<void> {
    let change: TaskChange;
    if ('error' in outcome) {
      change = { status: 'failed', statusMessage: outcome.error.message, error: outcome.error.toJSON() };
    } else if (live.era === 'legacy' && outcome.result.isError === true) {
      // 2025-11-25: a tool result with isError fails the task (the result stays retrievable).
      change = { status: 'failed', statusMessage: firstText(outcome.result), result: outcome.result };
    } else {
      change = { status: 'completed', result: outcome.result };
    }
    const done = this.write(live, change);
    return done.then(() => this.#retire(live));
  }

  /** Appends a store write to the task's chain and wakes waiters after it lands. */
  write(live: LiveTask, change: TaskChange): Promise<TaskRecord | undefined> {
    const before = live.chain;
    const next = before.then(() => this.store.update(live.taskId, live.owner, change));
    live.chain = next.then(
      (record) => this.#emit(record, live.creator),
      (error: unknown) => {
        this.#logger.error('task store update failed', { taskId: live.taskId, error: String(error) });
      },
    );
    return next.finally(() => this.#wake(live.taskId));
  }

  /** Status changes (after they are stored), for delivery through the subscription machinery. */
  onStatus(listener: (event: TaskStatusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #last = new Map<string, string>();

  #emit(record: TaskRecord | undefined, creator: string | undefined): void {
    if (record === undefined || this.#listeners.size === 0) return;
    // A write that changed nothing (e.g. a late result for a cancelled task) is not news.
    const stamp = `${record.status}@${record.lastUpdatedAt}#${Object.keys(record.inputRequests ?? {}).join(',')}`;
    if (this.#last.get(record.taskId) === stamp) return;
    this.#last.set(record.taskId, stamp);
    if (isTerminalTaskStatus(record.status)) this.#last.delete(record.taskId);
    const event: TaskStatusEvent = {
      taskId: record.taskId,
      message: taskStatusNotification(record),
      // Only a 2025-11-25 task notifies its creator's session; modern clients listen for it.
      creatorConnectionId: record.era === 'legacy' ? (record.creator ?? creator) : undefined,
    };
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error('task status listener failed', { error: String(error) });
      }
    }
  }

  live(taskId: string): LiveTask | undefined {
    return this.#live.get(taskId);
  }

  /** True when the record is past its TTL. */
  expired(record: TaskRecord): boolean {
    return record.expiresAt !== undefined && this.now() >= record.expiresAt;
  }

  /** Cancels: the record turns `cancelled` at once (terminal, so a late result cannot overwrite it), the work is aborted. */
  async cancel(
    record: TaskRecord,
    message = 'The task was cancelled by request.',
  ): Promise<TaskRecord | undefined> {
    const live = this.#live.get(record.taskId);
    if (live === undefined) {
      const updated = await this.store.update(record.taskId, record.owner, {
        status: 'cancelled',
        statusMessage: message,
      });
      this.#emit(updated, undefined);
      this.#wake(record.taskId);
      return updated;
    }
    const updated = await this.write(live, { status: 'cancelled', statusMessage: message });
    live.controller.abort(dispatchError('task_aborted', message));
    this.#retire(live);
    return updated;
  }

  /**
   * Delivers answers to outstanding input. Keys that are not outstanding are ignored; a malformed
   * answer to an outstanding key is -32602 before anything is delivered.
   */
  async answer(
    live: LiveTask,
    responses: JsonObject,
    check: (input: PendingInput, key: string, value: unknown) => void,
  ): Promise<void> {
    const accepted: [string, PendingInput, JsonObject][] = [];
    for (const [key, value] of Object.entries(responses)) {
      const input = live.inputs.get(key);
      if (input === undefined) continue;
      check(input, key, value);
      accepted.push([key, input, value as JsonObject]);
    }
    if (accepted.length === 0) return;
    for (const [key] of accepted) live.inputs.delete(key);
    await this.#syncInputs(live);
    for (const [, input, value] of accepted) input.resolve(value);
  }

  /** Resolves on the next status write for `taskId` (this process's, or any process's through `store.watch`), or after `timeoutMs`. */
  changed(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(taskId);
      if (set === undefined) {
        set = new Set();
        this.#waiters.set(taskId, set);
      }
      const waiters = set;
      let unwatch: (() => void) | undefined;
      const done = (): void => {
        clearTimeout(timer);
        unwatch?.();
        signal?.removeEventListener('abort', done);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(taskId) === waiters) this.#waiters.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      // A shared store wakes us when another process writes the task.
      unwatch = this.store.watch?.(taskId, done);
      waiters.add(done);
    });
  }

  get pollIntervalMs(): number {
    return this.#poll;
  }

  /** Aborts every live run and closes the default store. */
  async close(): Promise<void> {
    for (const live of [...this.#live.values()]) {
      live.controller.abort(dispatchError('task_aborted', 'server shutting down'));
      this.#retire(live);
    }
    if (this.#ownsStore) await this.store.close?.();
  }

  #park(live: LiveTask, key: string, input: Omit<PendingInput, 'resolve' | 'reject'>): Promise<unknown> {
    if (live.controller.signal.aborted) return Promise.reject(abortError(live));
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = (): void => {
        live.inputs.delete(key);
        reject(abortError(live));
      };
      live.controller.signal.addEventListener('abort', onAbort, { once: true });
      live.inputs.set(key, {
        ...input,
        resolve: (answer) => {
          live.controller.signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
        reject: (error) => {
          live.controller.signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      void this.#syncInputs(live);
    });
  }

  /** `input_required` with every outstanding request, or back to `working` once none is left. */
  #syncInputs(live: LiveTask): Promise<TaskRecord | undefined> {
    if (live.inputs.size === 0) return this.write(live, { status: 'working' });
    const inputRequests: Record<string, JsonObject> = {};
    for (const [key, { method, params }] of live.inputs) inputRequests[key] = { method, params };
    return this.write(live, { status: 'input_required', inputRequests });
  }

  #expire(live: LiveTask): void {
    live.controller.abort(dispatchError('task_aborted', 'task expired'));
    void this.write(live, { status: 'failed', statusMessage: 'Task has expired' }).then(() =>
      this.#retire(live),
    );
  }

  /** Another process cancelled the task this process runs: the record is already `cancelled` (and announced). */
  #stopCancelled(live: LiveTask): void {
    if (this.#live.get(live.taskId) !== live) return;
    live.controller.abort(dispatchError('task_aborted', 'The task was cancelled by request.'));
    this.#retire(live);
  }

  #retire(live: LiveTask): void {
    live.unwatch?.();
    if (live.expiry !== undefined) clearTimeout(live.expiry);
    for (const input of live.inputs.values()) input.reject(abortError(live));
    live.inputs.clear();
    if (this.#live.get(live.taskId) === live) this.#live.delete(live.taskId);
    this.#wake(live.taskId);
  }

  #wake(taskId: string): void {
    const set = this.#waiters.get(taskId);
    if (set === undefined) return;
    for (const waiter of [...set]) waiter();
  }
}

function abortError(live: LiveTask): Error {
  const reason: unknown = live.controller.signal.reason;
  return reason instanceof Error ? reason : dispatchError('task_aborted', 'task ended');
}

function firstText(result: JsonObject): string | undefined {
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const block = content.find((b) => isJsonObject(b) && b.type === 'text');
  return isJsonObject(block) && typeof block.text === 'string' ? block.text.slice(0, 500) : undefined;
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw dispatchError('invalid_option', `${name} must be a positive integer`);
  return value;
}
