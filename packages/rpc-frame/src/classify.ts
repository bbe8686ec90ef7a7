/** Classifies a parsed JSON value as a JSON-RPC message, or says why it is not one. */
import { JsonRpcErrorCode } from './error-codes.js';
import type {
  JsonObject,
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcSuccessResponse,
  RequestId,
} from './messages.js';

export interface InvalidMessage {
  kind: 'invalid';
  /** -32700 for text that is not JSON, -32600 for JSON that is not a JSON-RPC message. */
  code: typeof JsonRpcErrorCode.ParseError | typeof JsonRpcErrorCode.InvalidRequest;
  reason: string;
  /**
   * The id to answer with: `null` unless the value was plainly a request (it has a `method`)
   * with a valid id, so the peer can fail that one call instead of waiting for it forever.
   * Never a response's id: that id belongs to the other side's id space.
   */
  id: RequestId | null;
  /** The parsed value that was refused (absent for text that is not JSON): a wire profile may read it its own way. */
  value?: unknown;
}

export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcSuccessResponse | JsonRpcErrorResponse }
  | InvalidMessage;

/** A JSON-RPC id as MCP allows it: a string or an integer that survives a JSON round trip. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** A plain JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(reason: string, id: RequestId | null = null): InvalidMessage {
  return { kind: 'invalid', code: JsonRpcErrorCode.InvalidRequest, reason, id };
}

/** Never throws: any value gets a verdict. */
export function classify(value: unknown): Classified {
  const verdict = classifyValue(value);
  if (verdict.kind === 'invalid') verdict.value = value;
  return verdict;
}

function classifyValue(value: unknown): Classified {
  if (Array.isArray(value)) return invalid('batches are not supported (removed in MCP 2025-06-18)');
  if (!isJsonObject(value)) return invalid('a message must be a JSON object');
  if (value.method !== undefined) return classifyCall(value);
  if (value.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"');
  if (value.result !== undefined || value.error !== undefined) return classifyResponse(value);
  return invalid('a message needs a method, a result or an error');
}

function classifyCall(value: JsonObject): Classified {
  const { id, method, params } = value;
  const hasId = id !== undefined;
  const answerId = hasId && isRequestId(id) ? id : null;
  if (value.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"', answerId);
  if (typeof method !== 'string' || method.length === 0) {
    return invalid('method must be a non-empty string', answerId);
  }
  if (value.result !== undefined || value.error !== undefined) {
    return invalid('a message has a method or a result/error, not both', answerId);
  }
  if (params !== undefined && !isJsonObject(params)) return invalid('params must be an object', answerId);
  if (!hasId) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
  if (answerId === null)
    return invalid('id must be a string or an integer (not null, a fraction or an object)');
  return { kind: 'request', message: value as unknown as JsonRpcRequest };
}

function classifyResponse(value: JsonObject): Classified {
  const { id, result, error } = value;
  if (result !== undefined && error !== undefined)
    return invalid('a response has a result or an error, not both');
  if (result !== undefined) {
    if (!isRequestId(id)) return invalid('a response id must be a string or an integer');
    if (!isJsonObject(result)) return invalid('result must be an object');
    return { kind: 'response', message: value as unknown as JsonRpcSuccessResponse };
  }
  if (!isJsonObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string') {
    return invalid('error must be {code: integer, message: string}');
  }
  // An error response may carry id null (or, since 2025-11-25, none) when the request was unreadable.
  if (id !== null && id !== undefined && !isRequestId(id)) {
    return invalid('a response id must be a string, an integer or null');
  }
  return { kind: 'response', message: value as unknown as JsonRpcErrorResponse };
}
