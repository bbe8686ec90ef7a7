/**
 * JSON-RPC 2.0's own error codes, the ones this framing layer answers with itself. The full
 * catalogue (MCP's codes included) is `ErrorCode` of @agentd/lifecycle, which extends this one;
 * it cannot live here because lifecycle depends on this package.
 */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/**
 * @deprecated Use `JsonRpcErrorCode` (this table), or `ErrorCode` of @agentd/lifecycle for the full
 * catalogue with MCP's codes: two exports named `ErrorCode` meant two different tables.
 * @alias
 */
export const ErrorCode = JsonRpcErrorCode;
