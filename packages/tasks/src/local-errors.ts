/** The local error codes of @agentd/tasks (never sent to a peer): switch on `error.code`. */
import { LocalError } from '@agentd/rpc-frame';

/** - `task_limit`: a task store's `create` found the owner already holding the most tasks allowed. */
export type TasksErrorCode = 'task_limit';

export function tasksError(code: TasksErrorCode, message: string): LocalError<TasksErrorCode> {
  return new LocalError<TasksErrorCode>(code, message);
}
