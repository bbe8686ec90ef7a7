/** Classifies a parsed JSON value as a JSON-RPC message, or says why it is not one. */
import { ErrorCode } from './error-codes.js';
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
  code: typeof ErrorCode.ParseError | typeof ErrorCode.InvalidRequest;
  reason: string;
  /** The id to answer with: the message's own when it was readable, otherwise `null`. */
  id: RequestId | null;
}

export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcSuccessResponse | JsonRpcErrorResponse }
  | InvalidMessage;

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(reason: string, id: RequestId | null = null): InvalidMessage {
  return { kind: 'invalid', code: ErrorCode.InvalidRequest, reason, id };
}

export function classify(value: unknown): Classified {
  if (Array.isArray(value)) return invalid('batches are not supported (removed in MCP 2025-06-18)');
  if (!isJsonObject(value)) return invalid('a message must be a JSON object');
  const readableId = isRequestId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"', readableId);
  if ('method' in value) return classifyCall(value, readableId);
  if ('result' in value || 'error' in value) return classifyResponse(value, readableId);
  return invalid('a message needs a method, a result or an error', readableId);
}

function classifyCall(value: JsonObject, readableId: RequestId | null): Classified {
  const { method, params } = value;
  if (typeof method !== 'string' || method.length === 0) {
    return invalid('method must be a non-empty string', readableId);
  }
  if (params !== undefined && !isJsonObject(params)) {
    return invalid('params must be an object', readableId);
  }
  if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
  if (readableId === null) {
    return invalid('id must be a string or an integer');
  }
  return { kind: 'request', message: value as unknown as JsonRpcRequest };
}

function classifyResponse(value: JsonObject, readableId: RequestId | null): Classified {
  if ('result' in value && 'error' in value) return invalid('a response has a result or an error, not both');
  if ('result' in value) {
    if (readableId === null) return invalid('a response id must be a string or an integer');
    if (!isJsonObject(value.result)) return invalid('result must be an object', readableId);
    return { kind: 'response', message: value as unknown as JsonRpcSuccessResponse };
  }
  const { error } = value;
  if (!isJsonObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
    return invalid('error must be {code: integer, message: string}', readableId);
  }
  if (value.id !== null && value.id !== undefined && readableId === null) {
    return invalid('a response id must be a string, an integer or null');
  }
  return { kind: 'response', message: value as unknown as JsonRpcErrorResponse };
}
