/** @agentd/lifecycle/tasks: the rules of the Tasks extension (task methods, statuses, wire shapes). */
export {
  createTaskResult,
  declaresTasksExtension,
  isTerminalTaskStatus,
  LEGACY_TASK_METHODS,
  legacyTasksCapability,
  legacyVersionHasTasks,
  MODERN_TASK_METHODS,
  missingTasksExtension,
  RELATED_TASK_META,
  TASKS_EXTENSION,
  type TaskInfo,
  type TaskStatus,
  taskRefusal,
  taskWire,
} from './tasks-extension.js';
