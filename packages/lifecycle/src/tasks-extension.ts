/**
 * Tasks in both eras, as protocol rules: the `io.modelcontextprotocol/tasks` extension of
 * 2026-07-28 (SEP-2663) and the experimental tasks of 2025-11-25. Field names, methods, gating and
 * error texts live here; the runtime lives in `@agentd/dispatch`.
 */
import type { JsonObject, WireError } from '@agentd/rpc-frame';
import { ErrorCode } from './error-codes.js';
import { clientExtension, extensionsForEra, missingExtension } from './extensions.js';
import { Refusal } from './refusals.js';
import type { Era } from './versions.js';

/** The extension identifier (client and server `capabilities.extensions` key). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** 2025-11-25: the `_meta` key tying a `tasks/result` answer (and task-related requests) to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The first legacy revision with tasks. */
const FIRST_TASKS_VERSION = '2025-11-25';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Methods each era's task surface answers. 2026-07-28 removed `tasks/result` and `tasks/list`. */
export const MODERN_TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);
export const LEGACY_TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
]);

/** Error texts (the spec's own wording where it has one). */
const TaskErrorText = {
  notFound: 'Failed to retrieve task: Task not found',
  expired: 'Failed to retrieve task: Task has expired',
  missingTaskId: 'Invalid params: taskId must be a non-empty string',
  badInputResponses: 'Invalid params: inputResponses must be an object of input responses',
  terminal: (status: TaskStatus) => `Cannot cancel task: already in terminal status '${status}'`,
  notTaskTool: (tool: string) => `Method not found: tool ${tool} does not support task-augmented calls`,
  taskRequired: (tool: string) => `Method not found: tool ${tool} must be called as a task`,
} as const;

const taskInvalidParams = (message: string) =>
  new Refusal('invalid-params', ErrorCode.InvalidParams, message);
const taskMethodNotFound = (message: string) =>
  new Refusal('method-not-found', ErrorCode.MethodNotFound, message);

/** The tasks methods' refusals, with the texts above: -32602, or -32601 for a call of the wrong kind. */
export const taskRefusal = {
  notFound: () => taskInvalidParams(TaskErrorText.notFound),
  expired: () => taskInvalidParams(TaskErrorText.expired),
  missingTaskId: () => taskInvalidParams(TaskErrorText.missingTaskId),
  badInputResponses: () => taskInvalidParams(TaskErrorText.badInputResponses),
  terminal: (status: TaskStatus) => taskInvalidParams(TaskErrorText.terminal(status)),
  /** 2025-11-25 `tasks/result` of a task that was cancelled. */
  cancelled: (taskId: string) => taskInvalidParams(`Task ${taskId} was cancelled`),
  notTaskTool: (tool: string) => taskMethodNotFound(TaskErrorText.notTaskTool(tool)),
  taskRequired: (tool: string) => taskMethodNotFound(TaskErrorText.taskRequired(tool)),
  /** A failed task that stored no error of its own. */
  failed: () => new Refusal('internal-error', ErrorCode.InternalError, 'Task failed'),
} as const;

/** True when this request's (modern) or this session's (legacy) capabilities declare the extension. */
export function declaresTasksExtension(clientCapabilities: JsonObject): boolean {
  return clientExtension(clientCapabilities, TASKS_EXTENSION) !== undefined;
}

/** `-32021` naming the extension, for a request that needs it and did not declare it. */
export function missingTasksExtension(): WireError {
  return missingExtension(TASKS_EXTENSION);
}

/** Whether a legacy session at `version` has tasks (2025-11-25 and later legacy revisions). */
export function legacyVersionHasTasks(version: string): boolean {
  return version >= FIRST_TASKS_VERSION;
}

/** The 2025-11-25 server `tasks` capability: list, cancel and task-augmented `tools/call`. */
export function legacyTasksCapability(): JsonObject {
  return { list: {}, cancel: {}, requests: { tools: { call: {} } } };
}

/** The era-independent task facts a server keeps. Times are epoch milliseconds. */
export interface TaskInfo {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string | undefined;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Lifetime from creation; null = unlimited. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number | undefined;
}

/**
 * The `Task` object on the wire: `ttlMs`/`pollIntervalMs` in the extension, `ttl`/`pollInterval`
 * in 2025-11-25. Never carries `requestState` (SEP-2663 has no such field on tasks).
 */
export function taskWire(info: TaskInfo, era: Era): JsonObject {
  const out: JsonObject = { taskId: info.taskId, status: info.status };
  if (info.statusMessage !== undefined) out.statusMessage = info.statusMessage;
  out.createdAt = new Date(info.createdAt).toISOString();
  out.lastUpdatedAt = new Date(info.lastUpdatedAt).toISOString();
  if (era === 'modern') {
    out.ttlMs = info.ttlMs;
    if (info.pollIntervalMs !== undefined) out.pollIntervalMs = info.pollIntervalMs;
  } else {
    out.ttl = info.ttlMs;
    if (info.pollIntervalMs !== undefined) out.pollInterval = info.pollIntervalMs;
  }
  return out;
}

/** The answer to a call that became a task: flat `Result & Task` with `resultType: "task"` (modern), `{task}` (legacy). */
export function createTaskResult(info: TaskInfo, era: Era): JsonObject {
  if (era === 'modern') return { ...taskWire(info, 'modern'), resultType: 'task' };
  return { task: taskWire(info, 'legacy') };
}

/**
 * Capabilities as each era states them: modern `server/discover` never shows the 2025-11-25
 * `tasks` slot; a legacy `initialize` shows `tasks` only from 2025-11-25, and each era shows only
 * the extensions served in it (`extensionServedIn`: never the 2026-07-28 tasks extension in legacy).
 */
export function capabilitiesForEra<T extends { tasks?: unknown; extensions?: JsonObject }>(
  capabilities: T,
  era: Era,
  version: string,
): T {
  const dropTasks = capabilities.tasks !== undefined && (era === 'modern' || !legacyVersionHasTasks(version));
  const extensions = extensionsForEra(capabilities.extensions, era);
  if (!dropTasks && extensions === capabilities.extensions) return capabilities;
  const { tasks, extensions: _all, ...rest } = capabilities;
  const out: { tasks?: unknown; extensions?: JsonObject } = rest;
  if (!dropTasks && tasks !== undefined) out.tasks = tasks;
  if (extensions !== undefined) out.extensions = extensions;
  return out as T;
}
