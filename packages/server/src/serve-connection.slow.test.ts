/** The NDJSON loop over real unix sockets: bad input, concurrency, cancellation, slow peers, teardown. */
import type net from 'node:net';
import { memoryLogger, testHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerCore } from './core-types.js';
import type { ServeConnectionOptions } from './serve-connection.js';
import { createServerCore } from './server-core.js';
import { type SocketServer, startSocketServer } from './test-support/socket-server.js';

let server: SocketServer | undefined;
/** How long to wait for server-side state the test has no event for. */
const SERVER_SIDE = { timeout: 5_000, interval: 5 };

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function setup(options: ServeConnectionOptions = {}, maxInFlightPerConnection?: number) {
  const logger = memoryLogger();
  let core: ServerCore | undefined;
  const handler = testHandler({
    countSubscriptions: (peer) => (core as ServerCore).registry.subscriptionsOf(peer.connectionId).length,
  });
  core = createServerCore({
    handler,
    serverInfo: { name: 't', version: '1' },
    logger,
    ...(maxInFlightPerConnection === undefined ? {} : { maxInFlightPerConnection }),
  });
  return { core, handler, logger, start: async () => (server = await startSocketServer(core, options)) };
}

describe('bad input', () => {
  it('answers malformed lines with id null and keeps serving', async () => {
    const { start } = setup();
    const client = await (await start()).connect();
    client.sendRaw('this is not json\n');
    client.sendRaw('{"jsonrpc":"2.0"}\r\n');
    client.sendRaw('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    client.sendRaw('\n   \n');
    client.sendRaw('{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}\n');
    client.sendRaw('{"jsonrpc":"2.0","method":"notifications/whatever"}\n');
    client.sendRaw('{"jsonrpc":"2.0","id":"stray","result":{}}\n');
    const pong = await client.request('ping', undefined, 'after');
    expect(pong.result).toEqual({});
    expect(client.messages.map((m) => [m.id, m.error?.code ?? 'ok'])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [3, -32600],
      ['after', 'ok'],
    ]);
  });

  it('closes a connection that sends an oversized frame, with a logged reason, and serves others', async () => {
    const { start, logger } = setup({ maxFrameBytes: 1024 });
    const srv = await start();
    const bystander = await srv.connect();
    const offender = await srv.connect();
    offender.sendRaw(
      `{"jsonrpc":"2.0","id":1,"method":"test/echo","params":{"pad":"${'x'.repeat(4096)}"}}\n`,
    );
    await offender.closed();
    expect(offender.messages).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('1024 bytes') } },
    ]);
    expect(logger.records.some((r) => r.level === 'warning' && r.message.includes('frame too large'))).toBe(
      true,
    );
    expect((await bystander.request('ping')).result).toEqual({});
  });

  it('never leaks internal error details: -32603 generic on the wire, details in the log', async () => {
    const { start, logger } = setup();
    const client = await (await start()).connect();
    const response = await client.request('test/boom');
    expect(response.error).toEqual({ code: -32603, message: 'Internal error' });
    expect(JSON.stringify(client.messages)).not.toContain('secret');
    const logged = logger.records.find((r) => r.level === 'error');
    expect(String((logged?.fields.error as Error | undefined)?.message)).toContain('secret internals');
    expect((await client.request('test/wire-error')).error).toEqual({
      code: -32602,
      message: 'bad thing',
      data: { field: 'x' },
    });
    expect((await client.request('no/such/method')).error?.code).toBe(-32601);
  });

  it('answers -32603 when a result cannot be encoded, and keeps serving', async () => {
    const { start, logger } = setup();
    const client = await (await start()).connect();
    expect((await client.request('test/bigint', undefined, 'b')).error).toEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect(logger.records.some((r) => r.message === 'answer could not be encoded')).toBe(true);
    expect((await client.request('ping')).result).toEqual({});
  });

  it('refuses a request id that is already in flight on the connection', async () => {
    const { start } = setup();
    const client = await (await start()).connect();
    void client.request('test/block', {}, 'dup');
    await client.request('ping');
    client.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    const refused = await client.waitFor((m) => m.id === 'dup');
    expect(refused.error?.code).toBe(-32600);
  });
});

describe('concurrency and cancellation', () => {
  it('answers a fast request while a slow one runs (out of order)', async () => {
    const { start } = setup();
    const client = await (await start()).connect();
    const slow = client.request('test/wait-for', { key: 'k1' }, 'slow');
    await client.request('tools/list', undefined, 'fast');
    expect(client.messages.map((m) => m.id)).toEqual(['fast']);
    await client.request('test/release', { key: 'k1' }, 'release');
    expect((await slow).result).toEqual({ released: 'k1' });
    expect(client.messages.map((m) => m.id).indexOf('slow')).toBeGreaterThan(0);
  });

  it('bounds in-flight requests per connection; lifecycle answers do not wait for a slot', async () => {
    const { start } = setup({}, 2);
    const client = await (await start()).connect();
    void client.request('test/block', {}, 'b1');
    void client.request('test/block', {}, 'b2');
    const queued = client.request('test/slow', { ms: 1 }, 'queued');
    expect((await client.request('ping', undefined, 'p')).result).toEqual({});
    expect(client.messages.some((m) => m.id === 'queued')).toBe(false);
    client.notify('notifications/cancelled', { requestId: 'b1', reason: 'test' });
    expect((await queued).result).toEqual({ slept: 1, tag: null });
  });

  it('aborts the handler signal on notifications/cancelled and sends no response for it', async () => {
    const { start, handler } = setup();
    const client = await (await start()).connect();
    void client.request('test/block', {}, 42);
    await client.request('ping');
    client.notify('notifications/cancelled', { requestId: '42' }); // wrong JSON type: not the same request
    client.notify('notifications/cancelled', { requestId: 42 });
    await vi.waitFor(
      () => expect(handler.state.aborted, 'the handler saw request 42 aborted').toContain(42),
      SERVER_SIDE,
    );
    await client.request('ping');
    expect(client.messages.some((m) => m.id === 42)).toBe(false);
    expect(handler.state.aborted).toEqual([42]);
  });

  it('delivers request-scoped progress interleaved before the response', async () => {
    const { start } = setup();
    const client = await (await start()).connect();
    const done = await client.request('test/progress', { _meta: { progressToken: 'tok' } }, 'pr');
    expect(done.result).toEqual({ done: true });
    const progress = client.messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params?.progress)).toEqual([1, 2, 3]);
    expect(client.messages.at(-1)?.id).toBe('pr');
  });
});

describe('teardown', () => {
  it('closes a connection idle past idleTimeoutMs, but not one with a request in flight', async () => {
    const { start, logger } = setup({ idleTimeoutMs: 50 });
    const srv = await start();
    const idle = await srv.connect();
    const busy = await srv.connect();
    await idle.request('ping');
    const blocked = busy.request('test/wait-for', { key: 'idle-test' }, 'held');
    await idle.closed();
    expect(logger.records.some((r) => r.message === 'closing idle connection')).toBe(true);
    expect(busy.ended).toBe(false);
    await busy.request('test/release', { key: 'idle-test' });
    expect((await blocked).result).toEqual({ released: 'idle-test' });
  });

  it('with halfCloseDrainMs, answers in-flight requests after the peer half-closes, then ends the stream', async () => {
    const { start } = setup({ halfCloseDrainMs: 5_000 });
    const client = await (await start()).connect();
    const slow = client.request('test/slow', { ms: 100 }, 'last');
    client.stream.end();
    expect((await slow).result).toEqual({ slept: 100, tag: null });
    await client.closed();
  });

  it('removes subscriptions before onDisconnect, on EOF and on abrupt close', async () => {
    const { start, handler, core } = setup();
    const srv = await start();
    const a = await srv.connect();
    const b = await srv.connect();
    for (const client of [a, b]) {
      await client.request('resources/subscribe', { uri: 'test://x' });
      await client.request('resources/subscribe', { uri: 'test://y' });
    }
    expect(core.registry.stats().subscriptions).toBe(4);
    a.stream.end();
    b.close();
    await vi.waitFor(
      () => expect(handler.state.disconnects, 'onDisconnect for both peers').toHaveLength(2),
      SERVER_SIDE,
    );
    expect(handler.state.disconnects.map((d) => d.subscriptionsAtDisconnect)).toEqual([0, 0]);
    expect(core.registry.stats()).toEqual({ uris: 0, subscriptions: 0, channels: 0, listenStreams: 0 });
    expect(core.notifyResourceUpdated('test://x')).toBe(0);
    expect(core.connectionCount).toBe(0);
  });

  it.each([
    // The bound counts notifications only (replies are bounded by backpressure instead).
    ['its buffer bound', { maxBufferedBytes: 4 * 1024, writeTimeoutMs: 60_000 }, 'peer too slow'],
    ['the write timeout', { maxBufferedBytes: 64 * 1024 * 1024, writeTimeoutMs: 200 }, 'write timed out'],
  ])('drops a peer that never reads (by %s); pushes to others keep flowing', async (_by, options, reason) => {
    const { start, core, handler, logger } = setup(options);
    const srv = await start();
    const healthy = await srv.connect();
    const stalled: net.Socket = await srv.raw();
    stalled.pause(); // never reads a byte
    for (const client of [healthy]) await client.request('resources/subscribe', { uri: 'test://hot' });
    stalled.write(
      '{"jsonrpc":"2.0","id":"s","method":"resources/subscribe","params":{"uri":"test://hot"}}\n',
    );
    await vi.waitFor(
      () => expect(core.registry.subscriberCount('test://hot'), 'both peers subscribed').toBe(2),
      SERVER_SIDE,
    );
    // Fill the stalled peer's buffers with big answers, and keep pushing to everyone.
    for (let i = 0; i < 40; i += 1) {
      stalled.write(`{"jsonrpc":"2.0","id":${i},"method":"test/big","params":{"bytes":65536}}\n`);
    }
    let pushes = 0;
    await vi.waitFor(
      () => {
        core.notifyResourceUpdated('test://hot', { keep: true });
        pushes += 1;
        expect(handler.state.disconnects.length, 'the stalled peer to be dropped').toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 10 },
    );
    expect(handler.state.disconnects[0]?.peer.connectionId).toBe(srv.handles[1]?.peer.connectionId);
    const dropped = logger.records.find((r) => r.level === 'warning' && r.message === 'dropping connection');
    expect(String(dropped?.fields.reason)).toContain(reason);
    expect(core.registry.subscriberCount('test://hot')).toBe(1);
    expect((await healthy.request('ping')).result).toEqual({});
    const received = healthy.messages.filter((m) => m.method === 'notifications/resources/updated').length;
    expect(received).toBe(pushes);
  });
});
