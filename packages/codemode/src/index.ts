/**
 * Public API of @agentd/codemode: the QuickJS sandbox (`CodeModeRunner`, Node-only) that runs
 * `execute`. The runtime-neutral half (tool definitions, search) is `@agentd/codemode/tools`.
 * No MCP wire knowledge; `@agentd/dispatch` turns these into tools.
 */
export { CodeModeRunner, type CodeModeRunnerOptions } from './code-mode-runner.js';
export type { ExecuteOutcome, ExecuteRequest } from './execute-types.js';
export { ExecuteErrorCode } from './execution-codes.js';
export type { CodeModeErrorCode } from './local-errors.js';
export { DEFAULT_LIMITS, type SandboxLimits } from './sandbox-limits.js';
export { type QuickJsWasm, quickJsWasmPath } from './wasm-module.js';
