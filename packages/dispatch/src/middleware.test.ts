/** `Dispatcher.use`: onion order, the per-request bag, short-circuits, errors, coverage, behind the real server core. */
import { type JsonObject, JsonRpcErrorCode, type JsonRpcRequest, WireError } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import type { MiddlewareContext } from './middleware.js';
import { type PeerCore, peerCore, recordingLogger } from './test-support/peer-core.js';
import { makeContext } from './test-support/request-context.js';

const OAUTH_PEER: Peer = {
  origin: 'management',
  connectionId: 'mw-1',
  transport: 'http',
  auth: { principal: 'ada', scopes: ['runs:read'], scheme: 'oauth' },
  attributes: {},
};

let open: PeerCore[] = [];
afterEach(async () => {
  for (const core of open) await core.close();
  open = [];
});

function serve(dispatcher: Dispatcher, peer: Peer = OAUTH_PEER): PeerCore {
  const core = peerCore(dispatcher, peer);
  open.push(core);
  return core;
}

function echoDispatcher(logger = recordingLogger()) {
  const dispatcher = new Dispatcher({ logger });
  dispatcher.registerTool({
    name: 'echo',
    description: 'Echoes, with what middleware left in the bag',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: ({ text }, context) => ({ text, tenant: context.state.get('tenant') ?? null }),
  });
  return { dispatcher, logger };
}

describe('Dispatcher.use', () => {
  it('runs middleware as an onion in registration order, around every request', async () => {
    const { dispatcher } = echoDispatcher();
    const trail: string[] = [];
    dispatcher
      .use(async (ctx, next) => {
        trail.push(`a> ${ctx.method}`);
        const result = await next();
        trail.push(`a< ${ctx.method}`);
        return result;
      })
      .use(async (ctx, next) => {
        trail.push(`b> ${ctx.method}`);
        const result = await next();
        trail.push(`b< ${ctx.method}`);
        return result;
      });
    const core = serve(dispatcher);
    await core.call('tools/list');
    await core.call('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(trail).toEqual([
      'a> tools/list',
      'b> tools/list',
      'b< tools/list',
      'a< tools/list',
      'a> tools/call',
      'b> tools/call',
      'b< tools/call',
      'a< tools/call',
    ]);
  });

  it('sees method, params, peer and its auth, era, signal; fills the bag handlers read', async () => {
    const { dispatcher } = echoDispatcher();
    const seen: MiddlewareContext[] = [];
    dispatcher.use((ctx, next) => {
      seen.push(ctx);
      ctx.state.set('tenant', `${ctx.auth?.principal}-tenant`);
      return next();
    });
    const core = serve(dispatcher);
    const response = await core.call('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 7);
    expect(response.result).toMatchObject({ structuredContent: { text: 'hi', tenant: 'ada-tenant' } });
    const ctx = seen[0] as MiddlewareContext;
    expect(ctx.method).toBe('tools/call');
    expect(ctx.params).toMatchObject({ name: 'echo', arguments: { text: 'hi' } });
    expect(ctx.peer.connectionId).toBe('mw-1');
    expect(ctx.auth).toEqual(OAUTH_PEER.auth);
    expect(ctx.era).toBe('modern');
    expect(ctx.requestId).toBe(7);
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    // One bag per request: the next request starts empty.
    const bags = new Set<unknown>();
    dispatcher.use((ctx, next) => {
      bags.add(ctx.state);
      expect(ctx.state.has('seen')).toBe(false);
      ctx.state.set('seen', true);
      return next();
    });
    await core.call('tools/list');
    await core.call('tools/list');
    expect(bags.size).toBe(2);
  });

  it('may rewrite params before next()', async () => {
    const { dispatcher } = echoDispatcher();
    dispatcher.use((ctx, next) => {
      if (ctx.method === 'tools/call') ctx.params = { ...ctx.params, arguments: { text: 'rewritten' } };
      return next();
    });
    const response = await serve(dispatcher).call('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(response.result).toMatchObject({ structuredContent: { text: 'rewritten' } });
  });

  it('gives middleware `{}` for a request without params, and passes the request on untouched', async () => {
    const { dispatcher } = echoDispatcher();
    let seen: unknown;
    dispatcher.use((ctx, next) => {
      seen = ctx.params;
      return next();
    });
    // (Params that are not an object never get here: rpc-frame's classify answers them -32600.)
    const request: JsonRpcRequest = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const list = await dispatcher.handle(request, makeContext());
    expect(seen).toEqual({});
    expect(Array.isArray(list.tools)).toBe(true);
    expect(request).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  });

  it('short-circuits with a result (the handler never runs) or with a WireError', async () => {
    const { dispatcher } = echoDispatcher();
    let handlerRan = false;
    dispatcher.registerTool({
      name: 'guarded',
      description: 'Never reached',
      handler: () => {
        handlerRan = true;
        return 'ran';
      },
    });
    dispatcher.use((ctx, next) => {
      if (ctx.method === 'tools/list') return { tools: [] };
      if (ctx.params.name === 'guarded') throw new WireError(-32050, 'Rate limited', { retryAfterMs: 1000 });
      return next();
    });
    const core = serve(dispatcher);
    expect((await core.call('tools/list')).result).toMatchObject({ tools: [], resultType: 'complete' });
    const refused = await core.call('tools/call', { name: 'guarded', arguments: {} });
    expect(refused.error).toEqual({ code: -32050, message: 'Rate limited', data: { retryAfterMs: 1000 } });
    expect(handlerRan).toBe(false);
  });

  it("a middleware's own throw is -32603 with the error logged, never sent", async () => {
    const logger = recordingLogger();
    const { dispatcher } = echoDispatcher(logger);
    dispatcher.use(() => {
      throw new Error('db password is hunter2');
    });
    const response = await serve(dispatcher).call('tools/list');
    expect(response.error).toEqual({ code: JsonRpcErrorCode.InternalError, message: 'Internal error' });
    expect(JSON.stringify(response)).not.toContain('hunter2');
    expect(logger.lines.join('\n')).toMatch(/middleware failed.*hunter2/);
  });

  it('a non-object result, and calling next() twice, are internal errors too', async () => {
    const logger = recordingLogger();
    const { dispatcher } = echoDispatcher(logger);
    dispatcher.use(async (ctx, next) => {
      if (ctx.method === 'tools/list') return undefined as unknown as JsonObject;
      await next();
      return next();
    });
    const core = serve(dispatcher);
    expect((await core.call('tools/list')).error).toMatchObject({ code: JsonRpcErrorCode.InternalError });
    expect((await core.call('tools/call', { name: 'echo', arguments: {} })).error).toMatchObject({
      code: JsonRpcErrorCode.InternalError,
      message: 'Internal error',
    });
    expect(logger.lines.join('\n')).toContain('non-object result');
  });

  it("passes the dispatcher's own errors through unchanged", async () => {
    const { dispatcher, logger } = echoDispatcher();
    const errors: unknown[] = [];
    dispatcher.use(async (_ctx, next) => {
      try {
        return await next();
      } catch (error) {
        errors.push(error);
        throw error;
      }
    });
    const core = serve(dispatcher);
    const unknown = await core.call('tools/call', { name: 'nope', arguments: {} });
    expect(unknown.error).toEqual({ code: JsonRpcErrorCode.InvalidParams, message: 'Unknown tool: nope' });
    const missing = await core.call('prompts/list');
    expect(missing.error).toMatchObject({ code: JsonRpcErrorCode.MethodNotFound });
    expect(errors).toHaveLength(2);
    expect(logger.lines.join('\n')).not.toContain('middleware failed');
  });

  it('does not see lifecycle methods or notifications the core answers itself', async () => {
    const { dispatcher } = echoDispatcher();
    const methods: string[] = [];
    dispatcher.use((ctx, next) => {
      methods.push(ctx.method);
      return next();
    });
    const core = serve(dispatcher, { ...OAUTH_PEER, connectionId: 'legacy' });
    await core.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await core.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await core.send({ jsonrpc: '2.0', id: 2, method: 'ping' })).toMatchObject({ result: {} });
    await core.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(methods).toEqual(['tools/list']);
  });

  it('ContractServer.use reaches the same dispatcher', async () => {
    const { ContractServer } = await import('./contract-server.js');
    const server = new ContractServer();
    server.registerTool('hello', 'Says hello', { type: 'object' }, () => 'hello');
    server.use((ctx, next) => (ctx.method === 'tools/list' ? { tools: [], rewritten: true } : next()));
    const response = await server.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    });
    expect(response).toMatchObject({ result: { tools: [], rewritten: true } });
  });
});
