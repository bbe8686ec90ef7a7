/** Client input in both eras: MRTR rounds with sealed requestState (modern) and server-to-client requests (legacy). */
import { ErrorCode } from '@agentd/lifecycle';
import { type JsonObject, silentLogger, WireError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { InputRequired } from './input-required.js';
import { makeContext, rpc } from './test-support/request-context.js';

const quiet = silentLogger;
const ALL = { elicitation: {}, sampling: {}, roots: {} };

function textOf(result: JsonObject): string {
  return (result.content as { text: string }[])[0]?.text ?? '';
}

/** A three-step wizard: step1 (name) → step2 (colour) → complete. */
function wizard(options: { now?: () => number } = {}) {
  const d = new Dispatcher({
    logger: quiet,
    requestState: { key: 'k'.repeat(32), ttlMs: 60_000, ...options },
  });
  const runs: string[] = [];
  d.registerTool({
    name: 'wizard',
    description: 'asks twice',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    handler: async (args, ctx) => {
      runs.push('start');
      const name = await ctx.elicit(
        {
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
        { key: 'step1' },
      );
      const colour = await ctx.elicit(
        {
          message: 'Favourite colour?',
          requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } },
        },
        { key: 'step2' },
      );
      return `${(name.content as JsonObject).name} likes ${(colour.content as JsonObject).colour} (${String(args.topic)})`;
    },
  });
  return { d, runs };
}

const accept = (content: JsonObject) => ({ action: 'accept', content });

async function call(d: Dispatcher, params: JsonObject, capabilities: JsonObject = ALL) {
  return d.handle(rpc('tools/call', params), makeContext({ era: 'modern', capabilities }));
}

describe('multi-round-trip requests (modern)', () => {
  it('walks step1 → step2 → complete, carrying earlier answers in requestState', async () => {
    const { d } = wizard();
    const base = { name: 'wizard', arguments: { topic: 'paint' } };
    const r1 = await call(d, base);
    expect(r1.resultType).toBe('input_required');
    expect(Object.keys(r1.inputRequests as JsonObject)).toEqual(['step1']);
    expect((r1.inputRequests as Record<string, JsonObject>).step1?.method).toBe('elicitation/create');
    expect(typeof r1.requestState).toBe('string');
    expect(r1).not.toHaveProperty('ttlMs');

    const r2 = await call(d, {
      ...base,
      inputResponses: { step1: accept({ name: 'Ada' }) },
      requestState: r1.requestState,
    });
    expect(r2.resultType).toBe('input_required');
    expect(Object.keys(r2.inputRequests as JsonObject)).toEqual(['step2']);

    // round 3 sends only step2; step1 comes back from the sealed state
    const r3 = await call(d, {
      ...base,
      inputResponses: { step2: accept({ colour: 'teal' }) },
      requestState: r2.requestState,
    });
    expect(r3.resultType).toBeUndefined();
    expect(textOf(r3)).toBe('Ada likes teal (paint)');
  });

  it('rejects a tampered requestState with -32602', async () => {
    const { d } = wizard();
    const base = { name: 'wizard', arguments: {} };
    const r1 = await call(d, base);
    const tampered = `${String(r1.requestState)}-TAMPERED`;
    await expect(
      call(d, { ...base, inputResponses: { step1: accept({ name: 'x' }) }, requestState: tampered }),
    ).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    const [body, sig] = String(r1.requestState).split('.');
    const forged = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(body ?? '', 'base64url').toString()),
        r: { step1: accept({ name: 'evil' }) },
      }),
    ).toString('base64url');
    await expect(call(d, { ...base, requestState: `${forged}.${sig}` })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    await expect(call(d, { ...base, requestState: 12 })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  it('binds the state to the arguments, the tool and the principal', async () => {
    const { d } = wizard();
    const r1 = await call(d, { name: 'wizard', arguments: { topic: 'a' } });
    const state = r1.requestState;
    await expect(call(d, { name: 'wizard', arguments: { topic: 'b' }, requestState: state })).rejects.toThrow(
      /does not belong/,
    );
    const other = await d
      .handle(
        rpc('tools/call', { name: 'wizard', arguments: { topic: 'a' }, requestState: state }),
        makeContext({ era: 'modern', capabilities: ALL, peer: { attributes: { principal: 'mallory' } } }),
      )
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(WireError);
    expect((other as WireError).code).toBe(ErrorCode.InvalidParams);
  });

  it('rejects an expired requestState with -32602', async () => {
    let now = 1_000_000;
    const { d } = wizard({ now: () => now });
    const r1 = await call(d, { name: 'wizard', arguments: {} });
    now += 61_000;
    await expect(call(d, { name: 'wizard', arguments: {}, requestState: r1.requestState })).rejects.toThrow(
      /expired/,
    );
  });

  it('answers missing responses with a new input_required and ignores extra keys', async () => {
    const { d } = wizard();
    const base = { name: 'wizard', arguments: {} };
    const r1 = await call(d, base);
    const r2 = await call(d, {
      ...base,
      inputResponses: { wrong: accept({ name: 'x' }) },
      requestState: r1.requestState,
    });
    expect(r2.resultType).toBe('input_required');
    expect(Object.keys(r2.inputRequests as JsonObject)).toEqual(['step1']);
    const r3 = await call(d, {
      ...base,
      inputResponses: { step1: accept({ name: 'Bo' }), step2: accept({ colour: 'pre-answered' }), junk: 1 },
      requestState: r2.requestState,
    });
    // step2 was not asked for yet, so its early answer is ignored
    expect(Object.keys(r3.inputRequests as JsonObject)).toEqual(['step2']);
  });

  it('answers malformed inputResponses with a JSON-RPC error', async () => {
    const { d } = wizard();
    const r1 = await call(d, { name: 'wizard', arguments: {} });
    await expect(call(d, { name: 'wizard', arguments: {}, inputResponses: 'nope' })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      call(d, {
        name: 'wizard',
        arguments: {},
        inputResponses: { step1: { action: 'maybe' } },
        requestState: r1.requestState,
      }),
    ).rejects.toThrow(/Invalid inputResponses\["step1"\]/);
  });

  it('collects parallel requests of one round into one input_required', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({
      name: 'multi',
      description: 'm',
      handler: async (_args, ctx) => {
        const [user, greeting, roots] = await Promise.all([
          ctx.elicit(
            { message: 'name?', requestedSchema: { type: 'object', properties: {} } },
            { key: 'user_name' },
          ),
          ctx.sample({ messages: [], maxTokens: 50 }, { key: 'greeting' }),
          ctx.listRoots({ key: 'client_roots' }),
        ]);
        return { user, greeting, roots };
      },
    });
    const r1 = await call(d, { name: 'multi' });
    expect(Object.keys(r1.inputRequests as JsonObject).sort()).toEqual([
      'client_roots',
      'greeting',
      'user_name',
    ]);
    expect((r1.inputRequests as Record<string, JsonObject>).client_roots).toEqual({
      method: 'roots/list',
      params: {},
    });
    const r2 = await call(d, {
      name: 'multi',
      requestState: r1.requestState,
      inputResponses: {
        user_name: accept({}),
        greeting: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
        client_roots: { roots: [{ uri: 'file:///w' }] },
      },
    });
    expect(r2.resultType).toBeUndefined();
    expect(r2.structuredContent).toMatchObject({ roots: { roots: [{ uri: 'file:///w' }] } });
  });

  it('never requests a capability the client did not declare in this request', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({
      name: 'adaptive',
      description: 'asks what it can',
      handler: async (_args, ctx) => {
        const asks: Promise<JsonObject>[] = [];
        if (ctx.supports('elicitation'))
          asks.push(ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }));
        if (ctx.supports('sampling')) asks.push(ctx.sample({ messages: [], maxTokens: 5 }));
        await Promise.all(asks);
        return 'done';
      },
    });
    const r1 = await call(d, { name: 'adaptive' }, { sampling: {} });
    expect(Object.values(r1.inputRequests as Record<string, JsonObject>).map((r) => r.method)).toEqual([
      'sampling/createMessage',
    ]);

    d.registerTool({
      name: 'insists',
      description: 'needs elicitation',
      handler: async (_args, ctx) =>
        ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }),
    });
    const error = await call(d, { name: 'insists' }, { sampling: {} }).catch((e: unknown) => e as WireError);
    expect(error).toBeInstanceOf(WireError);
    expect((error as WireError).code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect((error as WireError).data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  it('handles a raw InputRequired thrown by a handler (keys chosen by the handler)', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({
      name: 'confirm',
      description: 'c',
      handler: (_args, ctx) => {
        const answer = ctx.inputResponses.confirm as JsonObject | undefined;
        if (!answer) {
          throw new InputRequired({
            confirm: {
              method: 'elicitation/create',
              params: {
                message: 'Sure?',
                requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
              },
            },
          });
        }
        return (answer.content as JsonObject).ok ? 'state-ok' : 'declined';
      },
    });
    const r1 = await call(d, { name: 'confirm' });
    expect(r1.inputRequests).toHaveProperty('confirm');
    const r2 = await call(d, {
      name: 'confirm',
      requestState: r1.requestState,
      inputResponses: { confirm: accept({ ok: true }) },
    });
    expect(textOf(r2)).toBe('state-ok');
    const noCaps = await call(d, { name: 'confirm' }, {}).catch((e: unknown) => e as WireError);
    expect((noCaps as WireError).code).toBe(ErrorCode.MissingRequiredClientCapability);
  });

  it('works for prompts/get and resources/read too', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerPrompt({
      name: 'ctx-prompt',
      description: 'p',
      get: async (_args, ctx) => {
        const answer = await ctx.elicit(
          { message: 'context?', requestedSchema: { type: 'object', properties: {} } },
          { key: 'user_context' },
        );
        return `context: ${JSON.stringify(answer.content)}`;
      },
    });
    d.registerResource({
      uri: 'test://asks',
      name: 'asks',
      read: async (_uri, ctx) => {
        const roots = await ctx.listRoots();
        return JSON.stringify(roots);
      },
    });
    const ctx = () => makeContext({ era: 'modern', capabilities: ALL });
    const p1 = await d.handle(rpc('prompts/get', { name: 'ctx-prompt' }), ctx());
    expect(p1.resultType).toBe('input_required');
    const p2 = await d.handle(
      rpc('prompts/get', {
        name: 'ctx-prompt',
        requestState: p1.requestState,
        inputResponses: { user_context: accept({ a: 1 }) },
      }),
      ctx(),
    );
    expect(p2).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'context: {"a":1}' } }],
    });
    const r1 = await d.handle(rpc('resources/read', { uri: 'test://asks' }), ctx());
    expect(r1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { roots_1: { method: 'roots/list' } },
    });
    expect(r1).not.toHaveProperty('ttlMs');
    const r2 = await d.handle(
      rpc('resources/read', {
        uri: 'test://asks',
        requestState: r1.requestState,
        inputResponses: { roots_1: { roots: [] } },
      }),
      ctx(),
    );
    expect(r2).toMatchObject({
      contents: [{ uri: 'test://asks', text: '{"roots":[]}' }],
      ttlMs: 0,
    });
  });

  it('never returns input_required from list methods', async () => {
    const { d } = wizard();
    const list = await d.handle(
      rpc('tools/list', { inputResponses: {}, requestState: 'x' }),
      makeContext({ era: 'modern' }),
    );
    expect(list.resultType).toBeUndefined();
  });
});

describe('client input (legacy)', () => {
  it('sends server-to-client requests in place, once, and resumes the handler', async () => {
    const { d, runs } = wizard();
    const sent: [string, JsonObject][] = [];
    const context = makeContext({
      capabilities: ALL,
      sendRequest: async (method, params) => {
        sent.push([method, params]);
        return accept(sent.length === 1 ? { name: 'Cy' } : { colour: 'red' });
      },
    });
    const result = await d.handle(rpc('tools/call', { name: 'wizard', arguments: { topic: 't' } }), context);
    expect(textOf(result)).toBe('Cy likes red (t)');
    expect(sent.map(([m]) => m)).toEqual(['elicitation/create', 'elicitation/create']);
    expect(runs).toEqual(['start']);
  });

  it('turns a client error answer into an isError result, not a protocol error', async () => {
    const { d } = wizard();
    const context = makeContext({
      capabilities: ALL,
      sendRequest: async () => {
        throw new WireError(-32601, 'Method not found');
      },
    });
    const result = await d.handle(rpc('tools/call', { name: 'wizard' }), context);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'the client did not answer elicitation/create: Method not found' }],
      isError: true,
    });
  });

  it('does not ask a legacy client for a capability it lacks', async () => {
    const { d } = wizard();
    let sent = 0;
    const context = makeContext({
      capabilities: {},
      sendRequest: async () => {
        sent++;
        return {};
      },
    });
    const result = await d.handle(rpc('tools/call', { name: 'wizard' }), context);
    expect(result.isError).toBe(true);
    expect(sent).toBe(0);
  });

  it('fulfils a raw keyed InputRequired through sendRequest and reruns the handler', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({
      name: 'confirm',
      description: 'c',
      handler: (_args, ctx) => {
        if (!ctx.inputResponses.ok) throw new InputRequired({ ok: { method: 'roots/list', params: {} } });
        return JSON.stringify(ctx.inputResponses.ok);
      },
    });
    const result = await d.handle(
      rpc('tools/call', { name: 'confirm' }),
      makeContext({ capabilities: ALL, sendRequest: async () => ({ roots: [{ uri: 'file:///r' }] }) }),
    );
    expect(textOf(result)).toBe('{"roots":[{"uri":"file:///r"}]}');
  });
});
