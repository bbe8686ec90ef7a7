/**
 * @agentd/tasks: where an MCP server keeps its tasks. The TaskStore seam and the record rules every
 * store shares, and the in-memory store. A shared store (such as `@agentd/redis`) implements the seam
 * with this package alone. This file is the package's public API.
 */
/** @public */
export type { TasksErrorCode } from './local-errors.js';
/** @public */
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory-task-store.js';
export {
  applyTaskChange,
  newTaskRecord,
  type TaskChange,
  type TaskInit,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';
