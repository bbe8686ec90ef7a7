/** docs/typed-tools.md's "one tool in each style" example, run for real through the test client. */
import { silentLogger } from '@agentd/rpc-frame';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';
import { createTestClient } from './testing.js';

it('the four styles publish, validate and add', async () => {
  const dispatcher = new Dispatcher({ logger: silentLogger });
  dispatcher.registerTool({
    name: 'add_json',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  dispatcher.registerTool({
    name: 'add_zod',
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number().positive() }),
    outputSchema: z.object({ sum: z.number() }),
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  dispatcher.registerTool({
    name: 'add_ark',
    description: 'Adds two numbers',
    inputSchema: type({ a: 'number', b: 'number > 0' }),
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  dispatcher.registerTool({
    name: 'add_valibot',
    description: 'Adds two numbers',
    inputSchema: toStandardJsonSchema(v.object({ a: v.number(), b: v.pipe(v.number(), v.minValue(1)) })),
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  const client = await createTestClient(dispatcher);
  try {
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add_ark', 'add_json', 'add_valibot', 'add_zod']);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
      expect((await client.callTool(tool.name as string, { a: 1, b: 2 })).structuredContent).toEqual({
        sum: 3,
      });
      const refused = await client.callTool(tool.name as string, { a: 1, b: 'two' });
      expect(refused.isError).toBe(true);
    }
    expect((await client.callTool('add_zod', { a: 1, b: -2 })).isError).toBe(true);
  } finally {
    await client.close();
  }
});
