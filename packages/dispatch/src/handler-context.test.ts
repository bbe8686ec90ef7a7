/** The handler context: progress only with a token and strictly increasing, logs only at the requested level. */
import { silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { makeContext, rpc } from './test-support/request-context.js';

function dispatcher() {
  const d = new Dispatcher({ logger: silentLogger });
  const sentFlags: boolean[] = [];
  d.registerTool({
    name: 'work',
    description: 'reports progress and logs',
    handler: (_args, ctx) => {
      sentFlags.push(ctx.progress(0, 100, 'start'));
      sentFlags.push(ctx.progress(50, 100));
      sentFlags.push(ctx.progress(50, 100)); // not an increase: dropped
      sentFlags.push(ctx.progress(10)); // going back: dropped
      sentFlags.push(ctx.progress(100, 100, 'done'));
      ctx.log('debug', 'fine detail');
      ctx.log('info', { step: 'processing' }, 'worker');
      ctx.log('error', 'bad thing');
      return 'ok';
    },
  });
  return { d, sentFlags };
}

describe('progress', () => {
  it('is sent only when the request carried a progressToken, strictly increasing', async () => {
    const { d, sentFlags } = dispatcher();
    const context = makeContext({ progressToken: 'tok-1' });
    await d.handle(rpc('tools/call', { name: 'work' }), context);
    const progress = context.notifications.filter((n) => n.method === 'notifications/progress');
    expect(progress.map((n) => n.params)).toEqual([
      { progressToken: 'tok-1', progress: 0, total: 100, message: 'start' },
      { progressToken: 'tok-1', progress: 50, total: 100 },
      { progressToken: 'tok-1', progress: 100, total: 100, message: 'done' },
    ]);
    expect(sentFlags).toEqual([true, true, false, false, true]);
  });

  it('is silent without a progressToken', async () => {
    const { d } = dispatcher();
    const context = makeContext();
    await d.handle(rpc('tools/call', { name: 'work' }), context);
    expect(context.notifications.filter((n) => n.method === 'notifications/progress')).toEqual([]);
  });

  it('stops after the request finished', async () => {
    const d = new Dispatcher({ logger: silentLogger });
    let late: ((n: number) => boolean) | undefined;
    d.registerTool({
      name: 'leaky',
      description: 'l',
      handler: (_args, ctx) => {
        late = (n) => ctx.progress(n);
        return 'ok';
      },
    });
    const context = makeContext({ progressToken: 7 });
    await d.handle(rpc('tools/call', { name: 'leaky' }), context);
    expect(late?.(1)).toBe(false);
    expect(context.notifications).toEqual([]);
  });
});

describe('log', () => {
  it('respects the level the core put in the context (legacy logging/setLevel)', async () => {
    const { d } = dispatcher();
    const context = makeContext({ logLevel: 'info' });
    await d.handle(rpc('tools/call', { name: 'work' }), context);
    const logs = context.notifications
      .filter((n) => n.method === 'notifications/message')
      .map((n) => n.params);
    expect(logs).toEqual([
      { level: 'info', data: { step: 'processing' }, logger: 'worker' },
      { level: 'error', data: 'bad thing' },
    ]);
  });

  it('sends nothing when no level was asked for (modern request without logLevel)', async () => {
    const { d } = dispatcher();
    const context = makeContext({ era: 'modern' });
    await d.handle(rpc('tools/call', { name: 'work' }), context);
    expect(context.notifications.filter((n) => n.method === 'notifications/message')).toEqual([]);
  });

  it('sends everything at debug', async () => {
    const { d } = dispatcher();
    const context = makeContext({ era: 'modern', logLevel: 'debug' });
    await d.handle(rpc('tools/call', { name: 'work' }), context);
    expect(context.notifications.filter((n) => n.method === 'notifications/message')).toHaveLength(3);
  });
});

describe('peer and request facts', () => {
  it('hands the handler the peer, era and client facts', async () => {
    const d = new Dispatcher({ logger: silentLogger });
    d.registerTool({
      name: 'who',
      description: 'w',
      handler: (_args, ctx) => ({
        origin: ctx.peer.origin,
        connection: ctx.peer.connectionId,
        era: ctx.era,
        sampling: ctx.supports('sampling'),
        roots: ctx.supports('roots'),
      }),
    });
    const result = await d.handle(
      rpc('tools/call', { name: 'who' }),
      makeContext({
        era: 'modern',
        peer: { origin: 'stdio', connectionId: 'c9' },
        capabilities: { sampling: {} },
      }),
    );
    expect(result.structuredContent).toEqual({
      origin: 'stdio',
      connection: 'c9',
      era: 'modern',
      sampling: true,
      roots: false,
    });
  });

  it('keeps its methods working when they are taken off the context', async () => {
    const d = new Dispatcher({ logger: silentLogger });
    let spreadKeys: string[] = [];
    d.registerTool({
      name: 'loose',
      description: 'destructures the context',
      handler: (_args, ctx) => {
        spreadKeys = Object.keys({ ...ctx });
        const { progress, log, supports, extension, signal } = ctx;
        return {
          sent: progress(1, 2),
          again: progress(1, 2),
          logged: log('error', 'x'),
          sampling: supports('sampling'),
          ui: extension('io.modelcontextprotocol/ui') ?? null,
          aborted: signal.aborted,
          same: ctx.progress === progress,
        };
      },
    });
    const context = makeContext({
      progressToken: 't',
      capabilities: { sampling: {}, extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['x'] } } },
    });
    const result = await d.handle(rpc('tools/call', { name: 'loose' }), context);
    expect(result.structuredContent).toEqual({
      sent: true,
      again: false,
      logged: false,
      sampling: true,
      ui: { mimeTypes: ['x'] },
      aborted: false,
      same: true,
    });
    expect(context.notifications.map((n) => n.method)).toEqual(['notifications/progress']);
    // A spread copy carries the request facts, not the call's internal state.
    expect(spreadKeys.sort()).toEqual(
      [
        'clientCapabilities',
        'clientInfo',
        'era',
        'inputResponses',
        'peer',
        'protocolVersion',
        'request',
        'requestId',
      ].sort(),
    );
  });
});
