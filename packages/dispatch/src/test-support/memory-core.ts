/** Test helper: a Dispatcher behind the real server core on an in-memory connection, spoken to in either era. */
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { classify, type JsonObject } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import type { Dispatcher } from '../dispatcher.js';

export interface MemoryClient {
  /** A legacy request on this connection's session (after `initialize`). */
  legacy(method: string, params?: JsonObject): Promise<JsonObject>;
  /** A 2026-07-28 request whose `_meta` declares `capabilities`. */
  modern(method: string, params?: JsonObject, capabilities?: JsonObject): Promise<JsonObject>;
  /** Opens the legacy session; resolves to the initialize result. */
  initialize(capabilities?: JsonObject, version?: string): Promise<JsonObject>;
}

let connections = 0;

/** One connection to a core serving `dispatcher`; each response is returned as parsed JSON (`{result}` or `{error}`). */
export function memoryClient(dispatcher: Dispatcher): MemoryClient {
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'memory', version: '1' },
    logger: silentLogger,
  });
  const id = `memory-${++connections}`;
  const connection = core.openConnection(
    { origin: 'management', connectionId: id, transport: 'memory', attributes: {} },
    { id, closed: false, write: () => true, close: () => {} },
  );
  let ids = 0;
  const send = async (method: string, params: JsonObject): Promise<JsonObject> => {
    const message = { jsonrpc: '2.0', id: ++ids, method, params };
    const response = await connection.handle(classify(JSON.parse(JSON.stringify(message))));
    return JSON.parse(JSON.stringify(response)) as JsonObject;
  };
  return {
    legacy: (method, params = {}) => send(method, params),
    modern: (method, params = {}, capabilities = {}) =>
      send(method, {
        ...params,
        _meta: {
          [MetaKey.protocolVersion]: MODERN_VERSION,
          [MetaKey.clientCapabilities]: capabilities,
          [MetaKey.clientInfo]: { name: 'memory-client', version: '1' },
        },
      }),
    async initialize(capabilities = {}, version = '2025-11-25') {
      const answer = await send('initialize', {
        protocolVersion: version,
        capabilities,
        clientInfo: { name: 'memory-client', version: '1' },
      });
      await connection.handle(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      return answer.result as JsonObject;
    },
  };
}
