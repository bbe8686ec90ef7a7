/** The in-memory test client: the same calls in both eras through the real server core. */

import type { JsonObject } from '@agentd/rpc-frame';
import { silentLogger, WireError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';
import { createTestClient, type TestClient } from './testing.js';

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

function dispatcher(): Dispatcher {
  const d = new Dispatcher({ logger: silentLogger });
  d.registerTool({
    name: 'add',
    description: 'adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }, ctx) => {
      ctx.progress(1, 2, 'half way');
      ctx.log('info', { adding: [a, b] });
      return { sum: a + b, peer: ctx.peer.transport, era: ctx.era };
    },
  });
  d.registerTool({
    name: 'greet',
    description: 'asks for a name',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        { key: 'name' },
      );
      return `hello ${String((answer.content as JsonObject).name)}`;
    },
  });
  return d;
}

describe.each(['modern', 'legacy'] as const)('createTestClient, %s era', (era) => {
  it('calls a tool and collects progress and log notifications', async () => {
    client = await createTestClient(dispatcher(), {
      era,
      logLevel: 'info',
      peer: { attributes: { principal: 'ada' } },
    });
    expect(client.era).toBe(era);
    expect(client.initializeResult === undefined).toBe(era === 'modern');
    const result = await client.callTool('add', { a: 2, b: 3 }, { progressToken: 'p1' });
    expect(result.structuredContent).toEqual({ sum: 5, peer: 'memory', era });
    if (era === 'modern') expect(result.resultType).toBe('complete');
    expect(client.notifications.map((n) => n.method)).toEqual([
      'notifications/progress',
      'notifications/message',
    ]);
    expect(client.notifications[0]?.params).toEqual({
      progressToken: 'p1',
      progress: 1,
      total: 2,
      message: 'half way',
    });
  });

  it('answers client input with onInputRequest (legacy request or modern input_required rounds)', async () => {
    const asked: string[] = [];
    client = await createTestClient(dispatcher(), {
      era,
      capabilities: { elicitation: {} },
      onInputRequest: (method) => {
        asked.push(method);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    expect((await client.callTool('greet')).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(asked).toEqual(['elicitation/create']);
  });

  it('rejects with the JSON-RPC error as a WireError and follows cursors in listTools', async () => {
    client = await createTestClient(dispatcher(), { era });
    const error = await client.callTool('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireError);
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: nope' });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['add', 'greet']);
  });
});

it('a missing onInputRequest fails loudly instead of hanging', async () => {
  client = await createTestClient(dispatcher(), { capabilities: { elicitation: {} } });
  await expect(client.callTool('greet')).rejects.toThrow(/pass onInputRequest to createTestClient/);
});
