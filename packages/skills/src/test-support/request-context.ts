/** Test helper: a RequestContext built by hand, so skills are exercised on a Dispatcher without a server core. */
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '@agentd/rpc-frame';
import { WireError } from '@agentd/rpc-frame';
import type { Era, RequestContext } from '@agentd/server';

export function makeContext(options: { era?: Era } = {}): RequestContext {
  const era = options.era ?? 'legacy';
  const notifications: JsonRpcNotification[] = [];
  return {
    peer: { origin: 'management', connectionId: 'conn-1', transport: 'test', attributes: {} },
    era,
    protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
    clientCapabilities: {},
    clientInfo: undefined,
    requestId: 1,
    signal: new AbortController().signal,
    progressToken: undefined,
    logLevel: undefined,
    notify: (message) => notifications.push(message),
    sendRequest: undefined,
  };
}

let nextId = 1;

export function rpc(method: string, params: JsonObject): JsonRpcRequest {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

/** For `.then(resolvedUnexpectedly, asWireError)`: a promise that must reject with a WireError. */
export function resolvedUnexpectedly(): never {
  throw new Error('expected the request to fail with a WireError');
}

export function asWireError(error: unknown): WireError {
  if (!(error instanceof WireError)) throw error;
  return error;
}
