/** The answer to a line that was not a JSON-RPC message. */
import type { InvalidMessage } from './classify.js';
import { errorResponse, type JsonRpcErrorResponse } from './messages.js';

export function invalidMessageResponse(invalid: InvalidMessage): JsonRpcErrorResponse {
  const message = invalid.code === -32700 ? 'Parse error' : `Invalid Request: ${invalid.reason}`;
  return errorResponse(invalid.id, { code: invalid.code, message });
}
