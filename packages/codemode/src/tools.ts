/**
 * @agentd/codemode/tools: the `search`/`execute` tool definitions, operation search and the JSON
 * Schema → TypeScript renderer, with no sandbox or worker pool behind them, so they load on every
 * runtime (the sandbox itself, `CodeModeRunner`, is Node-only). This file is the subpath's public API.
 */
export type { CallContext } from './execute-types.js';
export { jsonSchemaToTs, type SchemaArg, type SchemaToTsOptions } from './json-schema-to-ts.js';
export type { CodeModeErrorCode } from './local-errors.js';
export { DEFAULT_NAMESPACE } from './namespace.js';
export {
  isOperationKind,
  OPERATION_KINDS,
  type OperationDescriptor,
  type OperationKind,
} from './operation.js';
export {
  DEFAULT_SEARCH_LIMIT,
  type SearchEntry,
  type SearchOptions,
  type SearchQuery,
  type SearchResult,
  searchOperations,
} from './search-operations.js';
export { type CodeModeTool, createCodeModeTools, EXECUTE_TOOL, SEARCH_TOOL } from './tool-definitions.js';
