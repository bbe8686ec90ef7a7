/** Writing plain HTTP answers: JSON bodies, refusals, empty statuses. */
import { type Refusal, refuse } from '@agentd/lifecycle';
import { errorResponse, type RequestId } from '@agentd/rpc-frame';
import type { HttpOutgoing } from './http-io.js';
import { refusalStatus } from './http-status.js';
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
  // A literal key, then the spread: see node-exchange's send for why not two spreads.
  out.send(
    status,
    headers === undefined ? JSON_TYPE : { 'content-type': 'application/json', ...headers },
    text,
  );
}

/** A lifecycle refusal as its JSON-RPC error, with the status the refusal's reason maps to. */
export function sendRefusal(
  out: HttpOutgoing,
  id: RequestId | null,
  refusal: Refusal,
  headers?: Readonly<Record<string, string>>,
): void {
  sendJson(out, refusalStatus(refusal.reason), errorResponse(id, refusal.toJSON()), headers);
}

export function sendEmpty(
  out: HttpOutgoing,
  status: number,
  headers?: Readonly<Record<string, string>>,
): void {
  if (out.sent) return;
  out.send(status, headers ?? {});
}

/** 500 when nothing was sent yet; otherwise the answer is cut short. */
export function failed(out: HttpOutgoing): void {
  if (!out.sent) sendRefusal(out, null, refuse.internalError());
  else out.destroy();
}
