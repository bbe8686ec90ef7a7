/** Benchmark: tools/call and tools/list through the Dispatcher vs the official SDK server on the same 320-tool catalogue. */

import type { JsonRpcRequest } from '@agentd/rpc-frame';
import { silentLogger } from '@agentd/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { bench, describe } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';
import { coreRoundTrip } from './test-support/core-round-trip.js';
import { makeContext } from './test-support/request-context.js';

const TOOLS = 320;
const names = Array.from({ length: TOOLS }, (_, i) => `tool_${String(i).padStart(3, '0')}`);
const target = names[TOOLS / 2] as string;
const args = { id: 'srv-42', limit: 10, verbose: true };

// --- agentd Dispatcher, called directly (the in-process Handler seam) ---
const dispatcher = new Dispatcher({ pageSize: TOOLS, logger: silentLogger });
for (const name of names) {
  dispatcher.registerTool({
    name,
    description: `Looks up ${name}`,
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        limit: { type: 'integer', minimum: 1 },
        verbose: { type: 'boolean' },
      },
      required: ['id'],
    },
    handler: (a) => `${name}:${String(a.id)}`,
  });
}
const context = makeContext();
let nextId = 1;
const call = (): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: { name: target, arguments: args },
});
const list = (): JsonRpcRequest => ({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} });

// --- the same Dispatcher behind the server core, with a JSON round trip each way (like a transport) ---
const viaCore = await coreRoundTrip(dispatcher);

// --- the official SDK server over its in-memory transport, driven by the SDK client ---
const sdkServer = new SdkMcpServer({ name: 'bench', version: '1' });
for (const name of names) {
  sdkServer.registerTool(
    name,
    {
      description: `Looks up ${name}`,
      inputSchema: {
        id: z.string(),
        limit: z.number().int().min(1).optional(),
        verbose: z.boolean().optional(),
      },
    },
    async (a) => ({ content: [{ type: 'text', text: `${name}:${a.id}` }] }),
  );
}
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
const sdkClient = new Client({ name: 'bench-client', version: '1' });
await sdkServer.connect(serverTransport);
await sdkClient.connect(clientTransport);

describe(`tools/call (${TOOLS} tools)`, () => {
  bench('agentd Dispatcher.handle (in-process)', async () => {
    await dispatcher.handle(call(), context);
  });
  bench('agentd Dispatcher via createServerCore + JSON round trip', async () => {
    await viaCore(call());
  });
  bench('@modelcontextprotocol/sdk McpServer + InMemoryTransport + Client', async () => {
    await sdkClient.callTool({ name: target, arguments: args });
  });
});

describe(`tools/list (${TOOLS} tools)`, () => {
  bench('agentd Dispatcher.handle (in-process)', async () => {
    await dispatcher.handle(list(), context);
  });
  bench('agentd Dispatcher via createServerCore + JSON round trip', async () => {
    await viaCore(list());
  });
  bench('@modelcontextprotocol/sdk McpServer + InMemoryTransport + Client', async () => {
    await sdkClient.listTools();
  });
});
