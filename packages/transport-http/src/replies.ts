/** Writing plain HTTP answers: JSON bodies, JSON-RPC errors, empty statuses. */
import { errorResponse, type JsonRpcErrorObject, type RequestId } from '@agentd/rpc-frame';
import type { HttpOutgoing } from './http-io.js';
import { encodeOrInternalError } from './safe-encode.js';

const JSON_TYPE = { 'content-type': 'application/json' } as const;

export function sendJson(
  out: HttpOutgoing,
  status: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
): void {
  if (out.sent) return;
  const text = encodeOrInternalError(body, (value) => JSON.stringify(value));
  out.send(status, headers === undefined ? JSON_TYPE : { ...JSON_TYPE, ...headers }, text);
}

export function sendRpcError(
  out: HttpOutgoing,
  status: number,
  id: RequestId | null,
  error: JsonRpcErrorObject,
  headers?: Readonly<Record<string, string>>,
): void {
  sendJson(out, status, errorResponse(id, error), headers);
}

export function sendEmpty(
  out: HttpOutgoing,
  status: number,
  headers?: Readonly<Record<string, string>>,
): void {
  if (out.sent) return;
  out.send(status, headers ?? {});
}
