/**
 * @agentd/lifecycle: MCP protocol eras and versions; answers initialize, server/discover and ping
 * and checks modern per-request `_meta`. This file is the package's public API.
 */
export { checkModernMeta, type ModernMeta } from './check-modern-meta.js';
export {
  DEFAULT_DISCOVER_TTL_MS,
  type LifecycleOptions,
  type ResolvedLifecycle,
  resolveLifecycle,
} from './lifecycle-options.js';
export { lifecycleResponse } from './lifecycle-response.js';
export { isLevelEnabled, isLoggingLevel, LOGGING_LEVELS, type LoggingLevel } from './logging-level.js';
export { MCP_NAME_FIELDS } from './mcp-name-fields.js';
export { MetaKey } from './meta-keys.js';
export { modernResult } from './modern-result.js';
export type { Implementation, ServerCapabilities } from './protocol-types.js';
export { MODERN_ONLY_METHODS, REMOVED_IN_MODERN, requestEra, servedEra } from './request-era.js';
export {
  capabilitiesForEra,
  createTaskResult,
  declaresTasksExtension,
  FIRST_TASKS_VERSION,
  isTerminalTaskStatus,
  LEGACY_TASK_METHODS,
  legacyTasksCapability,
  legacyVersionHasTasks,
  MODERN_TASK_METHODS,
  missingTasksExtension,
  RELATED_TASK_META,
  TASK_STATUSES,
  TASKS_EXTENSION,
  TaskErrorText,
  type TaskInfo,
  type TaskStatus,
  type TaskSupport,
  taskWire,
} from './tasks-extension.js';
export { type Era, eraOfVersion, LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from './versions.js';
