/** JSON-RPC 2.0 message types as MCP uses them (params and results are objects). */

export type RequestId = string | number;

export type JsonObject = { [key: string]: unknown };

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

export interface JsonRpcSuccessResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: JsonObject;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /** `null` when the request's id could not be read (parse errors, invalid requests). */
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export function successResponse(id: RequestId, result: JsonObject): JsonRpcSuccessResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error };
}

export function notification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}
