/** What the operator CLI needs of a connection to agentd: modern-era requests with their notifications. */
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { type JsonObject, type JsonRpcNotification, LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';

export const CLIENT_PROTOCOL_VERSION = MODERN_VERSION;

export interface RequestOptions {
  /** Request-scoped notifications (progress, log messages) while the request is in flight. */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Aborting cancels the request (unix: `notifications/cancelled`; HTTP: the stream is closed). */
  signal?: AbortSignal;
}

export interface McpClient {
  /** Resolves with the result; a JSON-RPC error rejects with a WireError. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  close(): void;
}

/** The per-request `_meta` every modern request carries, merged with the caller's own. */
export function modernMeta(params: JsonObject, version: string): JsonObject {
  const own = typeof params._meta === 'object' && params._meta !== null ? (params._meta as JsonObject) : {};
  return {
    [MetaKey.protocolVersion]: CLIENT_PROTOCOL_VERSION,
    [MetaKey.clientCapabilities]: {},
    [MetaKey.clientInfo]: { name: 'agentd-cli', version },
    ...own,
  };
}

export class AbortedError extends LocalError<AgentdErrorCode> {
  override name = 'AbortedError';
  constructor(message: string) {
    super('aborted', message);
  }
}
