/** Test helper: a Dispatcher behind the real server core, on a connection whose peer the test picks. */
import { classify, type JsonObject, type JsonRpcMessage, type Logger } from '@agentd/rpc-frame';
import { createServerCore, type Peer, silentLogger } from '@agentd/server';
import type { Dispatcher } from '../dispatcher.js';

const MODERN = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

export interface PeerCore {
  /** A modern-era request; resolves to the JSON-RPC response (JSON round-tripped, as a transport would). */
  call(method: string, params?: JsonObject, id?: number): Promise<JsonObject>;
  /** Any message as it is (legacy lifecycle, notifications). */
  send(message: JsonObject): Promise<JsonObject | undefined>;
  readonly pushed: JsonRpcMessage[];
  close(): Promise<void>;
}

export function peerCore(dispatcher: Dispatcher, peer: Peer, logger: Logger = silentLogger): PeerCore {
  const core = createServerCore({ handler: dispatcher, serverInfo: { name: 'test', version: '1' }, logger });
  const pushed: JsonRpcMessage[] = [];
  const connection = core.openConnection(peer, {
    id: peer.connectionId,
    closed: false,
    write: (m) => pushed.push(m) > 0,
    close: () => {},
  });
  let next = 1;
  const send = async (message: JsonObject) => {
    const response = await connection.handle(classify(JSON.parse(JSON.stringify(message))));
    return response === undefined ? undefined : (JSON.parse(JSON.stringify(response)) as JsonObject);
  };
  return {
    pushed,
    send,
    async call(method, params = {}, id = next++) {
      const meta = { ...MODERN, ...((params._meta as JsonObject | undefined) ?? {}) };
      return (await send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })) as JsonObject;
    },
    async close() {
      connection.close();
      await core.close();
    },
  };
}

/** A logger that keeps every record, to check what was logged (and what was not sent). */
export function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string, fields?: unknown) => {
    const text = JSON.stringify(fields ?? {}, (_key, value: unknown) =>
      value instanceof Error ? `${value.name}: ${value.message}` : value,
    );
    lines.push(`${message} ${text}`);
  };
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}
