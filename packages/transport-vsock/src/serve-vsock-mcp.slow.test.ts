/** The transport-unix / serveConnection MCP suite, both eras, over the addon's AF_UNIX stand-in. */
import { once } from 'node:events';
import { createServerCore, type ServerCore } from '@agentd/server';
import { type Message, MODERN_META, memoryLogger, NdjsonClient, toolHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ServeVsockOptions, serveVsock, type VsockServer } from './serve-vsock.js';
import { bindUnixViaAddon, connectUnixViaAddon, tempSocketPath } from './test-support/unix-stand-in.js';
import type { VsockSocket } from './vsock-socket.js';

const STATUS = 'agent://status';
const LEGACY_INIT = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'legacy', version: '1' },
};
const EMPTY_REGISTRY = { uris: 0, subscriptions: 0, channels: 0, listenStreams: 0 };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(options: ServeVsockOptions = {}) {
  const path = tempSocketPath();
  const handler = toolHandler({ canSubscribe: (uri) => uri.startsWith('agent://') });
  const logger = memoryLogger();
  const core: ServerCore = createServerCore({
    handler,
    serverInfo: { name: 'vsock-mcp', version: '1' },
    logger,
  });
  const server: VsockServer = serveVsock(bindUnixViaAddon(path.path, 1_024), core, options);
  cleanups.push(
    path.cleanup,
    () => server.close(1_000),
    () => core.close(),
  );
  const raw = async (): Promise<VsockSocket> => {
    const socket = connectUnixViaAddon(path.path);
    cleanups.push(() => void socket.destroy());
    await once(socket, 'connect');
    return socket;
  };
  const connect = async () => new NdjsonClient(await raw());
  return { core, server, handler, logger, raw, connect };
}

/** How long to wait for server-side state the test cannot await directly. */
const SERVER_SIDE = { timeout: 10_000, interval: 5 };

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });
const listenMeta = (m: Message) => (m.params?._meta as Record<string, unknown> | undefined) ?? {};

async function initializedLegacy(connect: () => Promise<NdjsonClient>): Promise<NdjsonClient> {
  const client = await connect();
  await client.request('initialize', LEGACY_INIT);
  client.notify('notifications/initialized');
  return client;
}

describe('vsock stand-in: subscriptions and pushes', () => {
  it('legacy: resources/subscribe then one-shot push is consumed, keep pushes repeat', async () => {
    const { core, connect } = setup();
    const client = await initializedLegacy(connect);
    expect((await client.request('resources/subscribe', { uri: STATUS })).result).toEqual({});
    expect(core.registry.subscriberCount(STATUS)).toBe(1);
    expect(core.notifyResourceUpdated(STATUS, { keep: true })).toBe(1);
    expect(core.notifyResourceUpdated(STATUS, { keep: true })).toBe(1);
    expect(core.notifyResourceUpdated(STATUS)).toBe(1);
    expect(core.notifyResourceUpdated(STATUS)).toBe(0); // one-shot: consumed
    // A request after the pushes: its answer follows them on the same ordered stream.
    await client.request('tools/call', call('echo', { text: 'barrier' }));
    const updates = client.messages.filter((m) => m.method === 'notifications/resources/updated');
    expect(updates.map((m) => m.params)).toEqual([{ uri: STATUS }, { uri: STATUS }, { uri: STATUS }]);
  });

  it('legacy: refuses a resource the handler does not admit, and keeps serving', async () => {
    const { core, connect } = setup();
    const client = await initializedLegacy(connect);
    const refused = await client.request('resources/subscribe', { uri: 'file:///etc/shadow' });
    expect(refused.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'file:///etc/shadow' },
    });
    expect(core.registry.stats().subscriptions).toBe(0);
    expect((await client.request('ping')).result).toEqual({});
  });

  it('modern: subscriptions/listen acks, tags pushes with subscriptionId, and a cancel ends it', async () => {
    const { core, connect } = setup();
    const client = await connect();
    client.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'subscriptions/listen',
      params: {
        _meta: MODERN_META,
        notifications: { toolsListChanged: true, resourceSubscriptions: [STATUS] },
      },
    });
    const ack = await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(listenMeta(ack)['io.modelcontextprotocol/subscriptionId']).toBe(7); // number stays number
    expect(ack.params?.notifications).toMatchObject({
      toolsListChanged: true,
      resourceSubscriptions: [STATUS],
    });
    expect(core.registry.stats().listenStreams).toBe(1);
    expect(core.notifyResourceUpdated(STATUS, { keep: true })).toBe(1);
    expect(core.notifyListChanged('tools')).toBe(1);
    expect(core.notifyListChanged('resources')).toBe(0); // not asked for on this stream
    await client.modern('tools/call', call('echo', { text: 'barrier' }));
    const pushed = client.messages.filter((m) => m.method?.startsWith('notifications/') && m !== ack);
    expect(pushed.map((m) => m.method)).toEqual([
      'notifications/resources/updated',
      'notifications/tools/list_changed',
    ]);
    for (const message of pushed)
      expect(listenMeta(message)['io.modelcontextprotocol/subscriptionId']).toBe(7);
    expect(pushed[0]?.params?.uri).toBe(STATUS);

    client.notify('notifications/cancelled', { requestId: 7 });
    await vi.waitFor(
      () => expect(core.registry.stats().listenStreams, 'the cancelled listen stream closed').toBe(0),
      SERVER_SIDE,
    );
    expect(core.notifyResourceUpdated(STATUS, { keep: true })).toBe(0);
    expect((await client.modern('tools/call', call('echo', { text: 'still here' }))).result).toMatchObject({
      content: [{ text: 'still here' }],
    });
    // Cancelled by the client: never answered.
    expect(client.messages.some((m) => m.id === 7)).toBe(false);
  });

  it('list_changed goes once per legacy connection and once per listen stream, however many uris', async () => {
    const { core, connect } = setup();
    const legacy = await initializedLegacy(connect);
    for (const uri of [STATUS, 'agent://load', 'agent://disk'])
      await legacy.request('resources/subscribe', { uri });
    const modern = await connect();
    for (const id of ['l1', 'l2']) {
      modern.send({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: {
          _meta: MODERN_META,
          notifications: { toolsListChanged: true, resourceSubscriptions: [STATUS, 'agent://load'] },
        },
      });
      await modern.waitFor(
        (m) =>
          m.method === 'notifications/subscriptions/acknowledged' &&
          listenMeta(m)['io.modelcontextprotocol/subscriptionId'] === id,
      );
    }
    // Distinct writers: the legacy connection (3 uris) and each of the two listen streams (2 uris each).
    expect(core.notifyListChanged('tools')).toBe(3);
    await legacy.request('ping', undefined, 'after-legacy');
    await modern.modern('tools/call', call('echo'), 'after-modern');
    const changed = (client: NdjsonClient) =>
      client.messages.filter((m) => m.method === 'notifications/tools/list_changed');
    expect(changed(legacy)).toHaveLength(1);
    expect(changed(legacy)[0]?.params?._meta).toBeUndefined();
    const tags = changed(modern).map((m) => listenMeta(m)['io.modelcontextprotocol/subscriptionId']);
    expect(tags.sort()).toEqual(['l1', 'l2']);
  });

  it('removes subscriptions and listen streams after disconnect, on EOF and on abrupt close', async () => {
    const { core, handler, connect } = setup();
    const ended = await initializedLegacy(connect);
    const cut = await connect();
    await ended.request('resources/subscribe', { uri: STATUS });
    await ended.request('resources/subscribe', { uri: 'agent://load' });
    cut.send({
      jsonrpc: '2.0',
      id: 'listen',
      method: 'subscriptions/listen',
      params: {
        _meta: MODERN_META,
        notifications: { toolsListChanged: true, resourceSubscriptions: [STATUS] },
      },
    });
    await cut.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(core.registry.subscriberCount(STATUS)).toBe(2);
    ended.stream.end();
    cut.stream.destroy();
    await vi.waitFor(
      () => expect(handler.state.disconnects, 'onDisconnect for both peers').toHaveLength(2),
      SERVER_SIDE,
    );
    expect(core.registry.stats()).toEqual(EMPTY_REGISTRY);
    expect(core.connectionCount).toBe(0);
    expect(core.notifyResourceUpdated(STATUS, { keep: true })).toBe(0);
    expect(core.notifyListChanged('tools')).toBe(0);
  });
});

describe('vsock stand-in: concurrency and cancellation', () => {
  it.each(['legacy', 'modern'] as const)(
    '%s: answers a fast request while a slow one waits (out of order)',
    async (era) => {
      const { connect } = setup();
      const client = await connect();
      const send = (params: Record<string, unknown>, id: string) =>
        era === 'legacy' ? client.request('tools/call', params, id) : client.modern('tools/call', params, id);
      const slow = send(call('park', { key: `k-${era}` }), 'slow');
      const fast = await send(call('echo', { text: 'fast' }), 'fast');
      expect(fast.result).toMatchObject({ content: [{ text: 'fast' }] });
      expect(client.messages.map((m) => m.id)).toEqual(['fast']);
      await send(call('release', { key: `k-${era}` }), 'release');
      expect((await slow).result).toMatchObject({ content: [{ text: `released k-${era}` }] });
      expect(client.messages.map((m) => m.id).indexOf('slow')).toBeGreaterThan(0);
    },
  );

  it.each(['legacy', 'modern'] as const)(
    '%s: notifications/cancelled aborts the tool and it is never answered',
    async (era) => {
      const { connect, handler } = setup();
      const client = await connect();
      const send = (params: Record<string, unknown>, id: string | number) =>
        era === 'legacy' ? client.request('tools/call', params, id) : client.modern('tools/call', params, id);
      // Neither is ever answered: their waiters time out later, maybe while later tests run.
      send(call('block'), 42).catch(() => {});
      send(call('block'), 'other').catch(() => {});
      await send(call('echo'), 'barrier-1');
      client.notify('notifications/cancelled', { requestId: '42', reason: 'wrong JSON type: another id' });
      client.notify('notifications/cancelled', { requestId: 42, reason: 'user gave up' });
      await vi.waitFor(
        () => expect(handler.state.aborted, 'the handler saw request 42 aborted').toContain(42),
        SERVER_SIDE,
      );
      await send(call('echo'), 'barrier-2');
      expect(client.messages.some((m) => m.id === 42)).toBe(false);
      expect(handler.state.aborted).toEqual([42]);
    },
  );

  it('answers 200 interleaved requests over 10 connections in both eras, each id matched', async () => {
    const { connect } = setup();
    const clients = await Promise.all(Array.from({ length: 10 }, () => connect()));
    const results = await Promise.all(
      clients.flatMap((client, c) =>
        Array.from({ length: 20 }, (_, i) => {
          const id = `c${c}-${i}`;
          const params = call('echo', { text: id });
          const answer =
            c % 2 === 0 ? client.request('tools/call', params, id) : client.modern('tools/call', params, id);
          return answer.then((message) => ({ id, message }));
        }),
      ),
    );
    for (const { id, message } of results) {
      expect(message.id).toBe(id);
      expect(message.result).toMatchObject({ content: [{ text: id }] });
    }
  });
});

describe('vsock stand-in: slow peers and load', () => {
  it.each([
    // The bound counts notifications only (replies are bounded by backpressure instead).
    ['its buffer bound', { maxBufferedBytes: 4 * 1024, writeTimeoutMs: 60_000 }, 'peer too slow'],
    ['the write timeout', { maxBufferedBytes: 64 * 1024 * 1024, writeTimeoutMs: 200 }, 'write timed out'],
  ])('drops a peer that never reads (by %s); pushes to others keep flowing', async (_by, options, reason) => {
    const { core, handler, logger, connect, raw } = setup(options);
    const healthy = await connect();
    await healthy.request('resources/subscribe', { uri: STATUS });
    const stalled = await raw();
    stalled.pause(); // never reads a byte
    stalled.write(`{"jsonrpc":"2.0","id":"s","method":"resources/subscribe","params":{"uri":"${STATUS}"}}\n`);
    await vi.waitFor(
      () => expect(core.registry.subscriberCount(STATUS), 'both peers subscribed').toBe(2),
      SERVER_SIDE,
    );
    const stalledPeer = handler.state.connects[1];
    // Fill the stalled peer's buffers with big answers, and keep pushing to everyone.
    for (let i = 0; i < 40; i += 1) {
      stalled.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: call('big', { bytes: 65_536 }) })}\n`,
      );
    }
    let pushes = 0;
    await vi.waitFor(
      () => {
        core.notifyResourceUpdated(STATUS, { keep: true });
        pushes += 1;
        expect(handler.state.disconnects.length, 'the stalled peer to be dropped').toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 10 },
    );
    expect(handler.state.disconnects[0]?.connectionId).toBe(stalledPeer?.connectionId);
    const dropped = logger.records.find((r) => r.level === 'warning' && r.message === 'dropping connection');
    expect(String(dropped?.fields.reason)).toContain(reason);
    expect(core.registry.subscriberCount(STATUS)).toBe(1);
    expect((await healthy.request('ping')).result).toEqual({});
    const received = healthy.messages.filter((m) => m.method === 'notifications/resources/updated').length;
    expect(received).toBe(pushes);
  });

  it('serves 1,000 concurrent connections, each subscribed and answered', async () => {
    const { core, server, connect } = setup({ maxConnections: 2_000 });
    const count = 1_000;
    const clients = await Promise.all(Array.from({ length: count }, () => connect()));
    const answers = await Promise.all(
      clients.map((client, i) =>
        Promise.all([
          client.request('resources/subscribe', { uri: STATUS }, i),
          i % 2 === 0
            ? client.request('ping', undefined, `p${i}`)
            : client.modern('tools/call', call('echo', { text: `${i}` }), `p${i}`),
        ]),
      ),
    );
    answers.forEach(([subscribed, second], i) => {
      expect(subscribed.result).toEqual({});
      expect(second.id).toBe(`p${i}`);
      expect(second.error).toBeUndefined();
    });
    expect(server.connections).toBe(count);
    expect(core.connectionCount).toBe(count);
    expect(core.registry.subscriberCount(STATUS)).toBe(count);
    expect(core.notifyResourceUpdated(STATUS)).toBe(count);
    await Promise.all(
      clients.map((client) => client.waitFor((m) => m.method === 'notifications/resources/updated')),
    );
    await server.close(1_000);
    await Promise.all(clients.map((client) => client.closed()));
    expect(server.connections).toBe(0);
    await vi.waitFor(
      () => expect(core.connectionCount, 'the core let go of every connection').toBe(0),
      SERVER_SIDE,
    );
    expect(core.registry.stats()).toEqual(EMPTY_REGISTRY);
  }, 30_000);
});
