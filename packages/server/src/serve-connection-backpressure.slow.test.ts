/** The NDJSON loop under load over real unix sockets: backpressure, the input budget, hang-ups. */
import type net from 'node:net';
import type { StreamPushWriter } from '@agentd/subscriptions';
import { type Message, memoryLogger, NdjsonClient, testHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerCoreOptions } from './core-types.js';
import type { Handler } from './handler.js';
import type { ServeConnectionOptions } from './serve-connection.js';
import { createServerCore } from './server-core.js';
import { type SocketServer, startSocketServer } from './test-support/socket-server.js';

/** How long to wait for server-side state the test has no event for. */
const SERVER_SIDE = { timeout: 5_000, interval: 5 };

let server: SocketServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function setup(options: ServeConnectionOptions = {}, coreOptions: Partial<ServerCoreOptions> = {}) {
  const logger = memoryLogger();
  const inner = testHandler();
  let handled = 0;
  const handler: Handler & { state: typeof inner.state } = {
    ...inner,
    handle: (request, context) => {
      handled += 1;
      return inner.handle(request, context);
    },
  };
  const core = createServerCore({ handler, serverInfo: { name: 't', version: '1' }, logger, ...coreOptions });
  return {
    core,
    handler,
    logger,
    handled: () => handled,
    start: async () => (server = await startSocketServer(core, options)),
  };
}

const bigRequest = (id: number, bytes: number): string =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'test/big', params: { bytes } })}\n`;

describe('backpressure', () => {
  it('a healthy reader gets every reply even with more than 16 MiB of them queued at once', async () => {
    const { start, logger } = setup();
    const client = await (await start()).connect();
    // 12 replies of ~1.8 MB, produced in one go: far more than the old 16 MiB "too slow" bound.
    let burst = '';
    for (let id = 1; id <= 12; id += 1) burst += bigRequest(id, 1_800_000);
    client.sendRaw(burst);
    await client.waitFor((m) => m.id === 12, 20_000, 'the last of 12 replies');
    expect(client.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(client.messages.every((m) => String(m.result?.data).length === 1_800_000)).toBe(true);
    expect(client.ended).toBe(false);
    expect(logger.records.some((r) => r.message === 'dropping connection')).toBe(false);
    expect((await client.request('ping', undefined, 'after')).result).toEqual({});
  });

  it('stops reading and dispatching while a peer is behind on reading, then serves all of it', async () => {
    const { start, handled, logger } = setup({ highWaterBytes: 256 * 1024, writeTimeoutMs: 60_000 });
    const srv = await start();
    const socket: net.Socket = await srv.raw();
    socket.pause(); // reads nothing for now
    const total = 400;
    let burst = '';
    for (let id = 1; id <= total; id += 1) burst += bigRequest(id, 64 * 1024);
    socket.write(burst);
    // Wait until the server stopped taking requests: handled stays put while nothing is read.
    await vi.waitFor(
      () => expect(handled(), 'the server to handle a request').toBeGreaterThan(0),
      SERVER_SIDE,
    );
    let last = -1;
    await vi.waitFor(
      () => {
        const now = handled();
        const moved = now !== last;
        last = now;
        expect(moved, 'the server to stop handling while nothing is read').toBe(false);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(handled()).toBeLessThan(total);
    const client = new NdjsonClient(socket);
    socket.resume();
    await client.waitFor(() => client.messages.length === total, 20_000, `all ${total} replies`);
    expect(new Set(client.messages.map((m) => m.id)).size).toBe(total);
    expect(logger.records.some((r) => r.message === 'dropping connection')).toBe(false);
  });

  it('closes the connection whose unfinished input passes the server-wide budget, with a clear error', async () => {
    const { start, core, logger } = setup({}, { maxBufferedInputBytes: 1024 * 1024 });
    const srv = await start();
    const first = await srv.connect();
    const second = await srv.connect();
    const head = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"';
    first.sendRaw(`${head}${'x'.repeat(700 * 1024)}`);
    await vi.waitFor(
      () => expect(core.inputBudget.used, 'the first line to fill the budget').toBeGreaterThan(600 * 1024),
      SERVER_SIDE,
    );
    second.sendRaw(`${head}${'y'.repeat(700 * 1024)}`);
    const refused: Message = await second.waitFor((m) => m.error !== undefined);
    expect(refused.id).toBeNull();
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toContain("server's budget of 1048576 bytes");
    await second.closed();
    expect(
      logger.records.some((r) => r.message === 'closing connection: server input budget exhausted'),
    ).toBe(true);
    // The other connection is unharmed: its line completes and is answered.
    first.sendRaw('"}}\n');
    expect((await first.waitFor((m) => m.id === 1)).result).toEqual({});
    await vi.waitFor(() => expect(core.inputBudget.used, 'the budget to be given back').toBe(0), SERVER_SIDE);
  });
});

describe('hang-ups', () => {
  it.each([
    ['closes its socket', (socket: net.Socket) => socket.destroy()],
    ['half-closes (EOF)', (socket: net.Socket) => socket.end()],
  ])('a peer that %s has its in-flight requests cancelled at once', async (_how, hangUp) => {
    // A long drain deadline: only an immediate cancel can abort the handler within the test.
    const { start, handler } = setup({ drainTimeoutMs: 600_000 });
    const srv = await start();
    const socket = await srv.raw();
    const client = new NdjsonClient(socket);
    void client.request('test/block', {}, 'held').catch(() => {});
    await client.request('ping', undefined, 'started'); // the block was dispatched before this
    hangUp(socket);
    await vi.waitFor(() => {
      expect(handler.state.aborted, 'the held request cancelled').toContain('held');
      expect(handler.state.disconnects, 'onDisconnect for the peer').toHaveLength(1);
    }, SERVER_SIDE);
  });
});

describe('write stalls', () => {
  it('drops a subscribed peer that stopped reading within a second of writeTimeoutMs, however much keeps coming', async () => {
    const writeTimeoutMs = 2_500;
    const { start, core, logger } = setup({ writeTimeoutMs });
    const srv = await start();
    const socket = await srv.raw();
    const client = new NdjsonClient(socket);
    await client.initialize();
    await client.legacy('resources/subscribe', { uri: 'test://watched' });
    const handle = srv.handles[0];
    if (handle === undefined) throw new Error('no connection');
    let droppedAt = 0;
    void handle.closed.then(() => {
      droppedAt = Date.now();
    });
    // The peer stops reading; notifications keep coming until it is dropped.
    socket.pause();
    const writer = handle.connection.writer as StreamPushWriter;
    let stalledSince = 0;
    const pushing = setInterval(() => {
      for (let i = 0; i < 100; i++) core.notifyResourceUpdated('test://watched', { keep: true });
      // Output left queued after a push: the kernel's buffers are full and no write completes now.
      if (stalledSince === 0 && writer.bufferedBytes > 0) stalledSince = Date.now();
    }, 20);
    try {
      await handle.closed;
    } finally {
      clearInterval(pushing);
    }
    expect(stalledSince).toBeGreaterThan(0);
    const heldFor = droppedAt - stalledSince;
    // The last write completed at most one push interval before the stall was seen.
    expect(heldFor).toBeGreaterThanOrEqual(writeTimeoutMs - 100);
    // Within a second of the deadline (and some slack for a loaded machine), not a period late.
    expect(heldFor).toBeLessThan(writeTimeoutMs + 1_500);
    expect(
      logger.records.some(
        (r) => r.message === 'dropping connection' && String(r.fields.reason).includes('write timed out'),
      ),
    ).toBe(true);
  });
});
