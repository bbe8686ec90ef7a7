/** The answer to a line that was not a JSON-RPC message. */
import type { InvalidMessage } from './classify.js';
import { JsonRpcErrorCode } from './error-codes.js';
import { errorResponse, type JsonRpcErrorResponse } from './messages.js';

/** -32700 `Parse error` or -32600 `Invalid Request: <reason>`, with the verdict's id (usually null). */
export function invalidMessageResponse(invalid: InvalidMessage): JsonRpcErrorResponse {
  const message =
    invalid.code === JsonRpcErrorCode.ParseError ? 'Parse error' : `Invalid Request: ${invalid.reason}`;
  return errorResponse(invalid.id, { code: invalid.code, message });
}
