/** Encoding an answer that may not be JSON (a BigInt or a cycle from a handler) without losing the request. */
import {
  errorResponse,
  INTERNAL_ERROR_MESSAGE,
  isJsonObject,
  isRequestId,
  JsonRpcErrorCode,
  type JsonRpcErrorResponse,
} from '@agentd/rpc-frame';

/** Runs `encode` on the body; if it cannot be encoded, encodes a generic -32603 for the same id instead. */
export function encodeOrInternalError<T>(
  body: T,
  encode: (value: T | JsonRpcErrorResponse) => string,
): string {
  try {
    return encode(body);
  } catch {
    const id = isJsonObject(body) && isRequestId(body.id) ? body.id : null;
    return encode(
      errorResponse(id, { code: JsonRpcErrorCode.InternalError, message: INTERNAL_ERROR_MESSAGE }),
    );
  }
}
