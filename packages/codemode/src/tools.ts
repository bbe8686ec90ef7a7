/**
 * @agentd/codemode/tools: the `search`/`execute` tool definitions, operation search and the JSON
 * Schema → TypeScript renderer, with no sandbox or worker pool behind them, so they load on every
 * runtime (the sandbox itself, `CodeModeRunner`, is Node-only). This file is the subpath's public API.
 */
export type { CallContext } from './execute-types.js';
export { jsonSchemaToTs } from './json-schema-to-ts.js';
export { DEFAULT_NAMESPACE } from './namespace.js';
export { OPERATION_KINDS, type OperationDescriptor, type OperationKind } from './operation.js';
export { searchOperations } from './search-operations.js';
export { createCodeModeTools } from './tool-definitions.js';
