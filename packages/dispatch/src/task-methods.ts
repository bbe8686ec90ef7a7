/**
 * The task methods of both eras. 2026-07-28 extension: `tasks/get` (DetailedTask), `tasks/update`
 * (input answers), `tasks/cancel` (idempotent ack), each -32021 without the extension on the
 * request. 2025-11-25: `tasks/get`, `tasks/result` (blocks; delivers parked client input as
 * server-to-client requests), `tasks/list`, `tasks/cancel` (terminal: -32602).
 * Unknown, foreign and expired ids get the same kinds of -32602: nothing about other
 * principals' tasks leaks.
 */
import { refuse } from '@agentd/lifecycle';
import {
  declaresTasksExtension,
  isTerminalTaskStatus,
  LEGACY_TASK_METHODS,
  legacyVersionHasTasks,
  MODERN_TASK_METHODS,
  missingTasksExtension,
  RELATED_TASK_META,
  taskRefusal,
  taskWire,
} from '@agentd/lifecycle/tasks';
import { isJsonObject, type JsonObject, WireError } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { TaskRecord } from '@agentd/tasks';
import type { ClientInputMethod } from './client-capability.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { checkInputResponse } from './input-responses.js';
import { dispatchError } from './local-errors.js';
import { detailedTask } from './task-notification.js';
import type { TaskRuntime } from './task-runtime.js';

const LIST_PAGE = 50;

export async function handleTaskMethod(
  runtime: TaskRuntime,
  method: string,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  if (context.era === 'modern') {
    if (!MODERN_TASK_METHODS.has(method)) throw refuse.methodNotFound(method);
    if (!declaresTasksExtension(context.clientCapabilities)) throw missingTasksExtension();
    const record = await lookup(runtime, params, context);
    if (method === 'tasks/get') return detailedTask(record);
    if (method === 'tasks/update') return update(runtime, record, params);
    if (!isTerminalTaskStatus(record.status)) await runtime.cancel(record);
    return {};
  }
  if (!LEGACY_TASK_METHODS.has(method) || !legacyVersionHasTasks(context.protocolVersion)) {
    throw refuse.methodNotFound(method);
  }
  if (method === 'tasks/list') return list(runtime, params, context);
  const record = await lookup(runtime, params, context);
  if (method === 'tasks/get') return taskWire(record, 'legacy');
  if (method === 'tasks/result') return result(runtime, record, context);
  if (isTerminalTaskStatus(record.status)) throw taskRefusal.terminal(record.status);
  const cancelled = await runtime.cancel(record);
  return taskWire(cancelled ?? record, 'legacy');
}

/** The caller's task, or -32602: not found (missing or another principal's) or expired. */
async function lookup(
  runtime: TaskRuntime,
  params: JsonObject,
  context: RequestContext,
): Promise<TaskRecord> {
  const { taskId } = params;
  if (typeof taskId !== 'string' || taskId === '' || taskId.length > 256) throw taskRefusal.missingTaskId();
  const record = await runtime.store.get(taskId, runtime.ownerOf(context.peer));
  // A task created in the other era is not visible here (its shapes and methods differ).
  if (record === undefined || record.era !== context.era) throw taskRefusal.notFound();
  if (runtime.expired(record)) throw taskRefusal.expired();
  return record;
}

async function update(runtime: TaskRuntime, record: TaskRecord, params: JsonObject): Promise<JsonObject> {
  const responses = params.inputResponses;
  if (!isJsonObject(responses)) throw taskRefusal.badInputResponses();
  const live = runtime.live(record.taskId);
  if (live !== undefined) {
    await runtime.answer(live, responses, (input, key, value) => {
      checkInputResponse(input.method, key, value);
    });
  } else if (runtime.store.sendInput !== undefined && record.status === 'input_required') {
    // Run by another process: check the answers against what the task asked, then hand them over.
    const asked = record.inputRequests ?? {};
    const forwarded: JsonObject = {};
    for (const [key, value] of Object.entries(responses)) {
      const method = asked[key]?.method;
      if (typeof method !== 'string') continue;
      checkInputResponse(method as ClientInputMethod, key, value);
      forwarded[key] = value;
    }
    if (Object.keys(forwarded).length > 0) await runtime.store.sendInput(record.taskId, forwarded);
  }
  // Answers for a task that no longer waits are ignored, as unknown keys are.
  return {};
}

async function list(runtime: TaskRuntime, params: JsonObject, context: RequestContext): Promise<JsonObject> {
  const after = decodeCursor('tasks', params.cursor);
  const page = await runtime.store.list(runtime.ownerOf(context.peer), {
    ...(after === undefined ? {} : { after }),
    limit: LIST_PAGE,
    era: 'legacy',
  });
  const out: JsonObject = {
    tasks: page.tasks.filter((t) => !runtime.expired(t)).map((t) => taskWire(t, 'legacy')),
  };
  if (page.nextAfter !== undefined) out.nextCursor = encodeCursor('tasks', page.nextAfter);
  return out;
}

/**
 * 2025-11-25 `tasks/result`: blocks until the task is terminal. While it waits, client input the
 * task parked is sent as server-to-client requests on this request's stream, tagged with the task.
 */
async function result(runtime: TaskRuntime, first: TaskRecord, context: RequestContext): Promise<JsonObject> {
  let record = first;
  const related = { [RELATED_TASK_META]: { taskId: record.taskId } };
  const asked = new Set<string>();
  while (!isTerminalTaskStatus(record.status)) {
    if (context.signal.aborted) throw refuse.requestCancelled();
    const live = runtime.live(record.taskId);
    if (live !== undefined && context.sendRequest !== undefined) {
      for (const [key, input] of live.inputs) {
        if (asked.has(key)) continue;
        asked.add(key);
        const send = context.sendRequest;
        void send(input.method, { ...input.params, _meta: related }).then(
          (answer) =>
            runtime.answer(live, { [key]: answer }, (i, k, v) => void checkInputResponse(i.method, k, v)),
          (error: unknown) => {
            // This tasks/result went away: the request stays parked for the next one to deliver.
            if (context.signal.aborted) asked.delete(key);
            else
              input.reject(
                error instanceof Error
                  ? error
                  : dispatchError('client_input_unavailable', String(error), { cause: error }),
              );
          },
        );
      }
    }
    await runtime.changed(record.taskId, runtime.pollIntervalMs, context.signal);
    const next = await runtime.store.get(record.taskId, record.owner);
    if (next === undefined || runtime.expired(next)) throw taskRefusal.expired();
    record = next;
  }
  if (record.status === 'cancelled') throw taskRefusal.cancelled(record.taskId);
  if (record.result !== undefined) {
    const meta = isJsonObject(record.result._meta) ? record.result._meta : {};
    return { ...record.result, _meta: { ...meta, ...related } };
  }
  // The failure the task stored is the augmented request's own JSON-RPC error: answered as it was.
  throw record.error === undefined ? taskRefusal.failed() : WireError.from(record.error);
}
