/** Test helper: a RequestContext built by hand, so the Dispatcher is exercised without a server core. */
import {
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type LogLevel,
  type RequestId,
  WireError,
} from '@agentd/rpc-frame';
import type { Era, Peer, RequestContext } from '@agentd/server';

export interface ContextOptions {
  era?: Era;
  peer?: Partial<Peer>;
  capabilities?: JsonObject;
  logLevel?: LogLevel;
  progressToken?: string | number;
  requestId?: RequestId;
  signal?: AbortSignal;
  sendRequest?: (method: string, params: JsonObject) => Promise<JsonObject>;
}

export interface TestContext extends RequestContext {
  readonly notifications: JsonRpcNotification[];
}

export function peer(overrides: Partial<Peer> = {}): Peer {
  return { origin: 'management', connectionId: 'conn-1', transport: 'test', attributes: {}, ...overrides };
}

export function makeContext(options: ContextOptions = {}): TestContext {
  const notifications: JsonRpcNotification[] = [];
  const era = options.era ?? 'legacy';
  return {
    peer: peer(options.peer),
    era,
    protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
    clientCapabilities: options.capabilities ?? {},
    clientInfo: undefined,
    requestId: options.requestId ?? 1,
    signal: options.signal ?? new AbortController().signal,
    progressToken: options.progressToken,
    logLevel: options.logLevel,
    notify: (message) => notifications.push(message),
    sendRequest: options.sendRequest,
    notifications,
  };
}

let nextId = 1;

export function rpc(method: string, params?: JsonObject, id: RequestId = nextId++): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** For `.then(resolvedUnexpectedly, asWireError)`: a promise that must reject with a WireError. */
export function resolvedUnexpectedly(): never {
  throw new Error('expected the request to fail with a WireError');
}

export function asWireError(error: unknown): WireError {
  if (!(error instanceof WireError)) throw error;
  return error;
}
