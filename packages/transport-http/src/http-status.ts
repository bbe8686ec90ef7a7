/** The one table from protocol outcomes to HTTP statuses (spec 2026-07-28 transports, legacy conventions). */
import { type Era, ErrorCode, type RefusalReason } from '@agentd/lifecycle';
import type { JsonRpcResponse } from '@agentd/rpc-frame';

const REFUSAL_STATUS: Readonly<Record<RefusalReason, number>> = {
  'method-not-found': 404,
  'invalid-params': 400,
  'resource-not-found': 200,
  'missing-capability': 400,
  'connection-closing': 503,
  'duplicate-id': 400,
  'input-budget-exceeded': 413,
  'missing-meta': 400,
  'missing-protocol-version': 400,
  'missing-client-capabilities': 400,
  'bad-client-info': 400,
  'bad-log-level': 400,
  'bad-progress-token': 400,
  'unsupported-version': 400,
  'initialize-not-served': 404,
  'removed-in-modern': 404,
  'initialize-missing-version': 400,
  'initialize-bad-capabilities': 400,
  'header-mismatch': 400,
  'host-not-allowed': 403,
  unauthorized: 401,
  'insufficient-scope': 403,
  'auth-unavailable': 503,
  'shutting-down': 503,
  'not-acceptable': 406,
  'stream-not-acceptable': 406,
  'unsupported-media-type': 415,
  'payload-too-large': 413,
  'response-not-allowed': 400,
  'session-required': 400,
  'session-not-found': 404,
  'session-version-mismatch': 400,
  'initialize-with-session': 400,
  'too-many-sessions': 503,
  'stream-conflict': 409,
  // Not 404: that would tell the client its session is gone.
  'event-not-found': 400,
  'internal-error': 500,
};

/** A core's modern error answers by code: -32601 is 404, envelope errors 400, the rest (tool errors, …) 200. */
const MODERN_ANSWER_STATUS: Readonly<Record<number, number>> = {
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.ParseError]: 400,
  // The server is shutting down (the same -32000 a socket peer gets; a refusal before the core is 503 too).
  [ErrorCode.ConnectionClosed]: 503,
  // Step-up authorization: the token lacks a scope this call needs (finishAnswer adds the challenge).
  [ErrorCode.InsufficientScope]: 403,
};

export function refusalStatus(reason: RefusalReason): number {
  return REFUSAL_STATUS[reason];
}

/**
 * The status of the core's answer. Modern: by code (table above). Legacy: only malformed
 * messages are 400 and insufficient scope 403; a failed `initialize` is 400 (no session was minted).
 */
export function answerStatus(response: JsonRpcResponse, era: Era, initialize = false): number {
  if (!('error' in response)) return 200;
  const code = response.error.code;
  if (era === 'modern') return MODERN_ANSWER_STATUS[code] ?? 200;
  if (initialize) return 400;
  if (code === ErrorCode.InsufficientScope) return 403;
  return code === ErrorCode.InvalidRequest || code === ErrorCode.ParseError ? 400 : 200;
}
