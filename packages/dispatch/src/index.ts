/**
 * @agentd/dispatch: the MCP server a newcomer writes (`McpServer`: register tools, resources,
 * prompts, operations, skills; `connect(stdio())`), and the transport-agnostic Dispatcher behind
 * it (both protocol eras, client filters, tasks, multi-round-trip client input). This file is the
 * package's public API.
 */
export { type AppResourceDefinition, registerAppResource } from './app-resource.js';
export { type AppToolDefinition, registerAppTool } from './app-tool.js';
export type { SurfaceKind } from './catalogue.js';
export { MissingClientCapabilityError } from './client-capability.js';
export { type ClientFilters, compileFilters } from './client-filters.js';
export type {
  Completer,
  OperationDefinition,
  OperationKind,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './definitions.js';
export { Dispatcher } from './dispatcher.js';
export type { DispatcherOptions } from './dispatcher-options.js';
export type { HandlerContext } from './handler-context.js';
export { InputRequired } from './input-required.js';
export type { DispatchErrorCode } from './local-errors.js';
export { McpServer, type McpServerInfo, type McpServerOptions } from './mcp-server.js';
export type { Middleware, MiddlewareContext } from './middleware.js';
export { defaultScopesOf } from './scopes.js';
export { http, type ServedTransport, type ServerTransport, stdio, unix } from './server-transport.js';
export type { SkillDefinition } from './skill-build.js';
export { type TaskStatusEvent, taskStatusNotification } from './task-notification.js';
export { MemoryTaskStore } from './task-store.js';
export type { ToolCallContext, ToolCallHook } from './tool-call-hooks.js';
export { ToolResult, toolError } from './tool-result.js';
export type { InferArgs } from './tool-schema.js';
export { UriTemplate } from './uri-template.js';
