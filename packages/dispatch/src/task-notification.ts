/** A stored task as the client sees it: DetailedTask (2026-07-28) and the status notifications of both eras. */
import { taskWire } from '@agentd/lifecycle/tasks';
import { type JsonObject, JsonRpcErrorCode, type JsonRpcNotification, notification } from '@agentd/rpc-frame';
import type { TaskRecord } from '@agentd/tasks';

/** DetailedTask: the Task plus `inputRequests`, `result` or `error` for its status. */
export function detailedTask(record: TaskRecord): JsonObject {
  const out = taskWire(record, 'modern');
  if (record.status === 'input_required') out.inputRequests = { ...(record.inputRequests ?? {}) };
  if (record.status === 'completed' && record.result !== undefined) out.result = record.result;
  if (record.status === 'failed') {
    out.error = (record.error ?? {
      code: JsonRpcErrorCode.InternalError,
      message: record.statusMessage ?? 'Task failed',
    }) as unknown as JsonObject;
  }
  return out;
}

/** `notifications/tasks` (the full DetailedTask) or 2025-11-25 `notifications/tasks/status` (the Task). */
export function taskStatusNotification(record: TaskRecord): JsonRpcNotification {
  return record.era === 'modern'
    ? notification('notifications/tasks', detailedTask(record))
    : notification('notifications/tasks/status', taskWire(record, 'legacy'));
}

/** A status change, for the embedder to deliver (`core.notifyTaskStatus(taskId, message, creatorConnectionId)`). */
export interface TaskStatusEvent {
  readonly taskId: string;
  readonly message: JsonRpcNotification;
  /** The connection that created the task (where a 2025-11-25 session gets its notifications). */
  readonly creatorConnectionId: string | undefined;
}
