/**
 * Step-up authorization (MCP authorization, "runtime insufficient scope"): the JSON-RPC error a
 * server answers when a call needs OAuth scopes the caller's token lacks. Over HTTP it becomes
 * 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`; elsewhere it stays
 * this error, whose `data.requiredScopes` names what to ask the authorization server for.
 */
import { isJsonObject, type JsonRpcResponse } from '@agentd/rpc-frame';
import { ErrorCode } from './error-codes.js';
import { Refusal } from './refusals.js';

export function insufficientScope(requiredScopes: readonly string[]): Refusal {
  return new Refusal('insufficient-scope', ErrorCode.InsufficientScope, 'Forbidden: insufficient scope', {
    requiredScopes: [...requiredScopes],
  });
}

/** The scopes an insufficient-scope error response asks for; undefined for any other response. */
export function requiredScopesOf(response: JsonRpcResponse): readonly string[] | undefined {
  if (!('error' in response) || response.error.code !== ErrorCode.InsufficientScope) return undefined;
  const data = response.error.data;
  if (!isJsonObject(data) || !Array.isArray(data.requiredScopes)) return [];
  return data.requiredScopes.filter((scope): scope is string => typeof scope === 'string');
}
