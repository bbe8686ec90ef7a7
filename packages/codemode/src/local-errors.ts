/**
 * Codes of the LocalErrors codemode throws for a bad request (never for what a script does: that
 * is an `ExecuteOutcome` with an `ExecuteErrorCode`).
 */
export type CodeModeErrorCode =
  /** The namespace is not a plain identifier, or is a reserved word or a guest global. */
  | 'invalid_namespace'
  /** A sandbox limit is unknown, not a number, or out of range. */
  | 'invalid_limits'
  /** `searchOperations` got a kind that is not one of `OPERATION_KINDS`. */
  | 'invalid_kind'
  /** The QuickJS WebAssembly module cannot be found or read, or `wasm` is not a module, bytes, path or URL. */
  | 'invalid_wasm';
