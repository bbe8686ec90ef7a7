/** Benchmarks' view of a Dispatcher behind the real server core: an initialized legacy connection, JSON round trip each way (like a transport). */
import { classify, type JsonRpcMessage } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import type { Dispatcher } from '../dispatcher.js';

export async function coreRoundTrip(
  dispatcher: Dispatcher,
): Promise<(message: JsonRpcMessage) => Promise<unknown>> {
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'bench', version: '1' },
    logger: silentLogger,
  });
  const connection = core.openConnection(
    { origin: 'management', connectionId: 'bench', transport: 'memory', attributes: {} },
    { id: 'bench', closed: false, write: () => true, close: () => {} },
  );
  const roundTrip = async (message: JsonRpcMessage): Promise<unknown> => {
    const response = await connection.handle(classify(JSON.parse(JSON.stringify(message))));
    return JSON.parse(JSON.stringify(response));
  };
  await roundTrip({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  await connection.handle(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return roundTrip;
}
