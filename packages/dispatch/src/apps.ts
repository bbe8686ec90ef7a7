/**
 * @agentd/dispatch/apps: MCP Apps (`io.modelcontextprotocol/ui`) on a `Dispatcher` or an
 * `McpServer`: an HTML view as a `ui://` resource, and tools rendered by it. (`McpServer` has the
 * same as methods: `server.registerAppResource`, `server.registerAppTool`.) The extension's rules
 * (the `ui` metadata checks, `APP_MIME_TYPE`) are `@agentd/lifecycle/apps`'. This file is the
 * subpath's public API.
 */
/** @public */
export { type AppResourceDefinition, registerAppResource } from './app-resource.js';
/** @public */
export { type AppToolDefinition, registerAppTool } from './app-tool.js';
