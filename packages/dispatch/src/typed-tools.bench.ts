/**
 * Benchmark: a zod-typed tool here vs the same tool on the official SDK v2
 * (`@modelcontextprotocol/server`), per call; and registering 320 zod tools vs 320 JSON Schema tools.
 */
import { silentLogger } from '@agentd/server';
import { InMemoryTransport, McpServer as SdkV2Server } from '@modelcontextprotocol/server';
import { bench, describe } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';
import { coreRoundTrip } from './test-support/core-round-trip.js';

const TOOLS = 320;
const names = Array.from({ length: TOOLS }, (_, i) => `tool_${String(i).padStart(3, '0')}`);
const args = { id: 'srv-42', limit: 10, verbose: true };
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
} as const;

const zodShape = () => ({
  id: z.string().min(1),
  limit: z.number().int().min(1).optional(),
  verbose: z.boolean().optional(),
});

const jsonSchema = () =>
  ({
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1 },
      verbose: { type: 'boolean' },
    },
    required: ['id'],
  }) as const;

// --- agentd: the zod tool behind the real server core, a JSON round trip each way (like a transport) ---
const dispatcher = new Dispatcher({ logger: silentLogger });
dispatcher.registerTool({
  name: 'lookup',
  description: 'Looks a server up',
  inputSchema: z.object(zodShape()),
  handler: ({ id, limit }) => `${id}:${limit ?? 0}`,
});
const viaCore = await coreRoundTrip(dispatcher);

// --- SDK v2: the same zod tool on its McpServer, raw JSON-RPC over its InMemoryTransport ---
const sdk = new SdkV2Server({ name: 'bench', version: '1' });
sdk.registerTool(
  'lookup',
  { description: 'Looks a server up', inputSchema: z.object(zodShape()) },
  async ({ id, limit }) => ({ content: [{ type: 'text', text: `${id}:${limit ?? 0}` }] }),
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const waiting = new Map<unknown, (message: unknown) => void>();
clientSide.onmessage = (message) => {
  const id = (message as { id?: unknown }).id;
  waiting.get(id)?.(message);
  waiting.delete(id);
};
await sdk.connect(serverSide);
await clientSide.start();
const viaSdk = (message: { id: number } & Record<string, unknown>): Promise<unknown> =>
  new Promise((resolve) => {
    waiting.set(message.id, resolve);
    void clientSide.send(JSON.parse(JSON.stringify(message)));
  });
await viaSdk(initialize);
await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

let nextId = 1;
const call = () => ({
  jsonrpc: '2.0' as const,
  id: nextId++,
  method: 'tools/call',
  params: { name: 'lookup', arguments: args },
});

describe('tools/call of one zod-typed tool (legacy session, in memory)', () => {
  bench('agentd Dispatcher + createServerCore', async () => {
    await viaCore(call());
  });
  bench('SDK v2 McpServer + InMemoryTransport', async () => {
    await viaSdk(call());
  });
});

describe(`registering ${TOOLS} tools`, () => {
  bench(`agentd, ${TOOLS} zod tools`, () => {
    const d = new Dispatcher({ logger: silentLogger });
    for (const name of names) {
      d.registerTool({ name, description: name, inputSchema: z.object(zodShape()), handler: ({ id }) => id });
    }
  });
  bench(`agentd, ${TOOLS} JSON Schema tools`, () => {
    const d = new Dispatcher({ logger: silentLogger });
    for (const name of names) {
      d.registerTool({ name, description: name, inputSchema: jsonSchema(), handler: ({ id }) => id });
    }
  });
  bench(`SDK v2, ${TOOLS} zod tools`, () => {
    const s = new SdkV2Server({ name: 'bench', version: '1' });
    for (const name of names) {
      s.registerTool(name, { description: name, inputSchema: z.object(zodShape()) }, async ({ id }) => ({
        content: [{ type: 'text', text: id }],
      }));
    }
  });
});
