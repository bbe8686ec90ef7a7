/**
 * @agentd/dispatch: the MCP server a newcomer writes (`McpServer`: register tools, resources,
 * prompts, operations; `connect(stdio())`), and the transport-agnostic Dispatcher behind
 * it (both protocol eras, client filters, tasks, multi-round-trip client input). This file is the
 * package's public API.
 * `@public` tags the names no code in this repository imports: they are for users (knip keeps them).
 */
/**
 * What a server author throws or checks, re-exported so one import is enough: `WireError` (sent to
 * the client: a JSON-RPC `code`, message, data), `ErrorCode` (those numeric codes, JSON-RPC's and
 * MCP's: `ErrorCode.InvalidParams` is -32602), `LocalError` (never sent; its `code` is a string such
 * as a `DispatchErrorCode`).
 * @public
 */
export { ErrorCode } from '@agentd/lifecycle';
/** @public */
export { LocalError, WireError } from '@agentd/rpc-frame';
export type { SurfaceKind } from './catalogue.js';
/** @public */
export { MissingClientCapabilityError } from './client-capability.js';
export { type ClientFilters, compileFilters } from './client-filters.js';
/** @public */
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
/** @public */
export type { DispatcherOptions } from './dispatcher-options.js';
export type { HandlerContext } from './handler-context.js';
export { InputRequired } from './input-required.js';
/** @public */
export type { DispatchErrorCode } from './local-errors.js';
/** @public */
export { McpServer, type McpServerInfo, type McpServerOptions } from './mcp-server.js';
/** @public */
export type { Middleware, MiddlewareContext } from './middleware.js';
/** @public */
export { defaultScopesOf } from './scopes.js';
/** @public */
export { http, type ServedTransport, type ServerTransport, stdio, unix } from './server-transport.js';
export { type TaskStatusEvent, taskStatusNotification } from './task-notification.js';
/** @public */
export type { ToolCallContext, ToolCallHook } from './tool-call-hooks.js';
/** @public */
export { ToolResult, toolError } from './tool-result.js';
/** @public */
export type { InferArgs } from './tool-schema.js';
/** @public */
export { UriTemplate } from './uri-template.js';
