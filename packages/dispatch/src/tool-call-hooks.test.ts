/** `Dispatcher.useToolCall`: validated arguments in, CallToolResult out, short-circuits, errors, MRTR rounds. */
import { type JsonObject, JsonRpcErrorCode, WireError } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';
import { type PeerCore, peerCore, recordingLogger } from './test-support/peer-core.js';

const PEER: Peer = { origin: 'management', connectionId: 'hooks', transport: 'memory', attributes: {} };

let open: PeerCore[] = [];
afterEach(async () => {
  for (const core of open) await core.close();
  open = [];
});

function setup() {
  const logger = recordingLogger();
  const dispatcher = new Dispatcher({ logger });
  const handled: unknown[] = [];
  dispatcher.registerTool({
    name: 'shout',
    description: 'Shouts a name',
    // The output of the schema (trimmed, upper-cased) is what hooks and the handler receive.
    inputSchema: z.object({ name: z.string().trim().toUpperCase() }),
    handler: ({ name }) => {
      handled.push(name);
      return `HELLO ${name}`;
    },
  });
  dispatcher.registerTool({
    name: 'fail',
    description: 'Always fails',
    handler: () => {
      throw new Error('disk full');
    },
  });
  dispatcher.registerTool({
    name: 'ask',
    description: 'Asks the client for a colour',
    handler: async (_args, context) => {
      const answer = await context.elicit(
        {
          message: 'Colour?',
          requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } },
        },
        { key: 'colour' },
      );
      return `you chose ${String(answer.content?.colour)}`;
    },
  });
  const core = peerCore(dispatcher, PEER);
  open.push(core);
  return { dispatcher, core, logger, handled };
}

const text = (response: JsonObject) =>
  ((response.result as JsonObject).content as { text: string }[])[0]?.text;

describe('Dispatcher.useToolCall', () => {
  it('sees the validated arguments and the result, in registration order, and may change the result', async () => {
    const { dispatcher, core } = setup();
    const trail: string[] = [];
    dispatcher
      .useToolCall(async (call, next) => {
        trail.push(`outer> ${call.name} ${JSON.stringify(call.arguments)}`);
        const result = await next();
        trail.push(`outer< ${JSON.stringify(result.content)}`);
        return { ...result, _meta: { 'example.com/audited': true } };
      })
      .useToolCall(async (call, next) => {
        trail.push(`inner> ${call.name}`);
        return next();
      });
    const response = await core.call('tools/call', { name: 'shout', arguments: { name: '  ada ' } });
    expect(trail).toEqual([
      'outer> shout {"name":"ADA"}',
      'inner> shout',
      'outer< [{"type":"text","text":"HELLO ADA"}]',
    ]);
    expect(response.result).toMatchObject({ _meta: { 'example.com/audited': true } });
    expect(text(response)).toBe('HELLO ADA');
  });

  it('may replace the arguments or short-circuit (the handler never runs)', async () => {
    const { dispatcher, core, handled } = setup();
    dispatcher.useToolCall((call, next) => {
      if (call.arguments.name === 'CACHED') return { content: [{ type: 'text', text: 'from cache' }] };
      call.arguments = { name: 'GRACE' };
      return next();
    });
    expect(text(await core.call('tools/call', { name: 'shout', arguments: { name: 'cached' } }))).toBe(
      'from cache',
    );
    expect(text(await core.call('tools/call', { name: 'shout', arguments: { name: 'ada' } }))).toBe(
      'HELLO GRACE',
    );
    expect(handled).toEqual(['GRACE']);
  });

  it("sees a handler's throw as a rejection; rethrown, it is the usual isError result", async () => {
    const { dispatcher, core } = setup();
    const seen: string[] = [];
    dispatcher.useToolCall(async (_call, next) => {
      try {
        return await next();
      } catch (error) {
        seen.push((error as Error).message);
        throw error;
      }
    });
    const response = await core.call('tools/call', { name: 'fail', arguments: {} });
    expect(seen).toEqual(['disk full']);
    expect(response.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'disk full' }] });
  });

  it("a hook's own throw is -32603 and logged; its WireError is sent as it is", async () => {
    const { dispatcher, core, logger } = setup();
    dispatcher.useToolCall((call) => {
      if (call.name === 'shout') throw new Error('audit store offline at 10.0.0.7');
      throw new WireError(-32050, 'Quota exceeded');
    });
    const internal = await core.call('tools/call', { name: 'shout', arguments: { name: 'x' } });
    expect(internal.error).toEqual({ code: JsonRpcErrorCode.InternalError, message: 'Internal error' });
    expect(JSON.stringify(internal)).not.toContain('10.0.0.7');
    expect(logger.lines.join('\n')).toMatch(/tool-call hook failed.*10\.0\.0\.7/);
    const quota = await core.call('tools/call', { name: 'fail', arguments: {} });
    expect(quota.error).toEqual({ code: -32050, message: 'Quota exceeded' });
  });

  it('passes client-input rounds through, running once per round', async () => {
    const { dispatcher, core } = setup();
    const outcomes: string[] = [];
    dispatcher.useToolCall(async (_call, next) => {
      try {
        const result = await next();
        outcomes.push('result');
        return result;
      } catch (error) {
        outcomes.push('asked');
        throw error;
      }
    });
    const first = await core.call('tools/call', { name: 'ask', arguments: {} });
    const round = first.result as JsonObject;
    expect(round.resultType).toBe('input_required');
    const second = await core.call('tools/call', {
      name: 'ask',
      arguments: {},
      requestState: round.requestState,
      inputResponses: { colour: { action: 'accept', content: { colour: 'teal' } } },
    });
    expect(text(second)).toBe('you chose teal');
    expect(outcomes).toEqual(['asked', 'result']);
  });

  it('reads the bag request middleware filled', async () => {
    const { dispatcher, core } = setup();
    dispatcher.use((ctx, next) => {
      ctx.state.set('requestId', ctx.requestId);
      return next();
    });
    let seen: unknown;
    dispatcher.useToolCall((call, next) => {
      seen = call.state.get('requestId');
      return next();
    });
    await core.call('tools/call', { name: 'shout', arguments: { name: 'x' } }, 41);
    expect(seen).toBe(41);
  });
});
