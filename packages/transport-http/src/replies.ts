/** Writing plain HTTP answers: JSON bodies, JSON-RPC errors, empty statuses. */
import type { ServerResponse } from 'node:http';
import { errorResponse, type JsonRpcErrorObject, type RequestId } from '@agentd/rpc-frame';
import { encodeOrInternalError } from './safe-encode.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  const text = encodeOrInternalError(body, (value) => JSON.stringify(value));
  const head: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  };
  if (headers !== undefined) Object.assign(head, headers);
  res.writeHead(status, head);
  res.end(text);
}

export function sendRpcError(
  res: ServerResponse,
  status: number,
  id: RequestId | null,
  error: JsonRpcErrorObject,
  headers?: Record<string, string>,
): void {
  sendJson(res, status, errorResponse(id, error), headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, headers);
  res.end();
}
