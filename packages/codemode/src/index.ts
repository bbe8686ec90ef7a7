/**
 * Public API of @agentd/codemode: `search` + `execute` over an operation index, in a QuickJS
 * sandbox. No MCP wire knowledge; `@agentd/dispatch` turns these into tools.
 */
export { CodeModeRunner, type CodeModeRunnerOptions } from './code-mode-runner.js';
export type {
  CallContext,
  ExecuteErrorCodeValue,
  ExecuteOutcome,
  ExecuteRequest,
  OperationCall,
} from './execute-types.js';
export { ExecuteErrorCode } from './execution-codes.js';
export { jsonSchemaToTs, type SchemaArg, type SchemaToTsOptions } from './json-schema-to-ts.js';
export type { CodeModeErrorCode } from './local-errors.js';
export { DEFAULT_NAMESPACE } from './namespace.js';
export {
  isOperationKind,
  OPERATION_KINDS,
  type OperationDescriptor,
  type OperationKind,
} from './operation.js';
export { DEFAULT_LIMITS, type SandboxLimits } from './sandbox-limits.js';
export {
  DEFAULT_SEARCH_LIMIT,
  type SearchEntry,
  type SearchOptions,
  type SearchQuery,
  type SearchResult,
  searchOperations,
} from './search-operations.js';
export { type CodeModeTool, createCodeModeTools, EXECUTE_TOOL, SEARCH_TOOL } from './tool-definitions.js';
export { type QuickJsWasm, quickJsWasmPath } from './wasm-module.js';
