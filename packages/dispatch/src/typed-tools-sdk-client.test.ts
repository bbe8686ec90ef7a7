/** The official SDK client reads typed tools: published zod/ArkType/Valibot schemas, validated structuredContent, isError. */
import { classify, type JsonRpcMessage } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';

it('an SDK client lists, calls and validates typed tools, and sees ported errors as errors', async () => {
  const dispatcher = new Dispatcher({ logger: silentLogger });
  dispatcher.registerTool({
    name: 'zod',
    description: 'zod tool',
    inputSchema: z.object({ n: z.number().int() }),
    outputSchema: z.object({ doubled: z.number() }),
    handler: ({ n }) => ({ doubled: n * 2 }),
  });
  dispatcher.registerTool({
    name: 'ark',
    description: 'ArkType tool',
    inputSchema: type({ n: 'number' }),
    outputSchema: type({ tripled: 'number' }),
    handler: ({ n }) => ({ tripled: n * 3 }),
  });
  dispatcher.registerTool({
    name: 'valibot',
    description: 'Valibot tool',
    inputSchema: toStandardJsonSchema(v.object({ n: v.number() })),
    outputSchema: toStandardJsonSchema(v.object({ halved: v.number() })),
    handler: ({ n }) => ({ halved: n / 2 }),
  });
  dispatcher.registerTool({
    name: 'ported',
    description: 'SDK-style error',
    handler: () => ({ content: [{ type: 'text', text: 'quota exceeded' }], isError: true }),
  });

  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 't', version: '1' },
    logger: silentLogger,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const send = (message: JsonRpcMessage): boolean => {
    void serverSide.send(message as unknown as JSONRPCMessage);
    return true;
  };
  const connection = core.openConnection(
    { origin: 'management', connectionId: 'sdk', transport: 'memory', attributes: {} },
    { id: 'sdk', closed: false, write: send, close: () => {} },
  );
  serverSide.onmessage = (message) => {
    void connection.handle(classify(message)).then((response) => response && send(response));
  };
  await serverSide.start();
  const client = new Client({ name: 'sdk-client', version: '1' });
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ark', 'ported', 'valibot', 'zod']);
    // The SDK client checks structuredContent against the published outputSchema itself.
    expect((await client.callTool({ name: 'zod', arguments: { n: 4 } })).structuredContent).toEqual({
      doubled: 8,
    });
    expect((await client.callTool({ name: 'ark', arguments: { n: 2 } })).structuredContent).toEqual({
      tripled: 6,
    });
    expect((await client.callTool({ name: 'valibot', arguments: { n: 3 } })).structuredContent).toEqual({
      halved: 1.5,
    });
    expect(await client.callTool({ name: 'zod', arguments: { n: 1.5 } })).toMatchObject({ isError: true });
    expect(await client.callTool({ name: 'ported', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'quota exceeded' }],
      isError: true,
    });
  } finally {
    await client.close();
    await core.close();
  }
});
