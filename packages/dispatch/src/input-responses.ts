/** Shape checks for client answers (ElicitResult, CreateMessageResult, ListRootsResult) before a handler sees them. */
import { refuse } from '@agentd/lifecycle';
import type { JsonObject } from '@agentd/rpc-frame';
import type { ClientInputMethod } from './client-capability.js';
import { isJsonObject } from './json.js';

function problem(method: ClientInputMethod, value: unknown): string | undefined {
  if (!isJsonObject(value)) return 'must be an object';
  if (method === 'elicitation/create') {
    if (value.action !== 'accept' && value.action !== 'decline' && value.action !== 'cancel') {
      return 'action must be "accept", "decline" or "cancel"';
    }
    if (value.content !== undefined && !isJsonObject(value.content)) return 'content must be an object';
    return undefined;
  }
  if (method === 'sampling/createMessage') {
    if (typeof value.role !== 'string') return 'role must be a string';
    if (!isJsonObject(value.content) && !Array.isArray(value.content))
      return 'content must be a content block';
    return undefined;
  }
  if (
    !Array.isArray(value.roots) ||
    !value.roots.every((root) => isJsonObject(root) && typeof root.uri === 'string')
  ) {
    return 'roots must be an array of {uri}';
  }
  return undefined;
}

/** Returns the answer typed as an object, or throws -32602 naming the key and what is wrong. */
export function checkInputResponse(method: ClientInputMethod, key: string, value: unknown): JsonObject {
  const reason = problem(method, value);
  if (reason !== undefined) {
    throw refuse.invalidInputResponse(key, reason);
  }
  return value as JsonObject;
}
