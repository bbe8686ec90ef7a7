/**
 * @agentd/dispatch: the transport-agnostic MCP dispatcher (tools, operations, resources,
 * prompts, completions, client filters, MRTR) and the seed-002 `McpServer` face.
 */

export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppCsp,
  type AppPermissions,
  type AppResourceUi,
  type AppToolUi,
  type AppVisibility,
  LOGGING_LEVELS,
} from '@agentd/lifecycle';
export { type AppResourceDefinition, registerAppResource } from './app-resource.js';
export { type AppToolDefinition, registerAppTool } from './app-tool.js';
export type { SurfaceKind } from './catalogue.js';
export { MissingClientCapabilityError } from './client-capability.js';
export {
  type ArgumentValueRules,
  type CallableRules,
  type ClientFilters,
  type CompiledFilters,
  compileFilters,
  type VisibilityRules,
} from './client-filters.js';
export type { CodeModeOptions } from './code-mode.js';
export {
  type CacheHints,
  type CallToolResultShape,
  type Completer,
  type CompletionRef,
  type CompletionValue,
  type ContentBlock,
  OPERATION_KINDS,
  type OperationDefinition,
  type OperationIndexEntry,
  type OperationKind,
  type PromptArgument,
  type PromptDefinition,
  type PromptGetValue,
  type PromptMessage,
  type ResourceContents,
  type ResourceDefinition,
  type ResourceReadValue,
  type ResourceTemplateDefinition,
  type ToolDefinition,
  type ToolHandler,
  type ToolReturn,
  type TypedToolHandler,
} from './definitions.js';
export { DEFAULT_PAGE_SIZE, Dispatcher, type DispatcherOptions } from './dispatcher.js';
export type { ElicitResult, HandlerContext, InputOptions } from './handler-context.js';
export { InputRequired } from './input-required.js';
export type { JsonSchemaType } from './json-schema-type.js';
export type { DispatchErrorCode } from './local-errors.js';
export { INPUT_REQUIRED_TEXT } from './mcp-contract.js';
export {
  type HandleRequestOptions,
  McpServer,
  type McpServerOptions,
  type McpToolHandler,
} from './mcp-server.js';
export type { Middleware, MiddlewareContext } from './middleware.js';
export { NAME_PATTERN } from './names.js';
export type { RequestState } from './per-request-state.js';
export type { ArgumentIssue, SchemaValidation } from './schema-compiler.js';
export { defaultScopesOf, type ScopesOf } from './scopes.js';
export type {
  DynamicSkillChild,
  DynamicSkillDefinition,
  DynamicSkillSource,
  SkillDefinition,
  StaticSkillDefinition,
} from './skill-build.js';
export type { SkillRegistry, SkillsOptions } from './skills-registry.js';
export type {
  StandardJSONSchemaV1,
  StandardSchemaV1,
  StandardToolSchema,
  StandardTypedV1,
} from './standard-schema.js';
export type { SurfaceListener } from './surface-events.js';
export { detailedTask, type TaskStatusEvent, taskStatusNotification } from './task-notification.js';
export {
  TaskRuntime,
  type TasksOptions,
  type TaskToolOptions,
  type ToolTaskSupport,
} from './task-runtime.js';
export {
  applyTaskChange,
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  newTaskId,
  newTaskRecord,
  type TaskChange,
  type TaskInit,
  TaskLimitError,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';
export type { ToolCallContext, ToolCallHook } from './tool-call-hooks.js';
export { isCallToolResult, ToolResult, toolError } from './tool-result.js';
export type { InferArgs, InferOutputValue, JsonSchemaObject, ToolSchema } from './tool-schema.js';
export { type TemplateVariables, UriTemplate } from './uri-template.js';
