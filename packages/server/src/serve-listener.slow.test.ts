/** The shared accept loop over a real unix socket listener: identity, the limit, close with flush. */
import { EventEmitter, once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryLogger, NdjsonClient, testHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ListenerServer, type ServeListenerOptions, serveListener } from './serve-listener.js';
import { createServerCore } from './server-core.js';

/** How long to wait for server-side state the test has no event for. */
const SERVER_SIDE = { timeout: 5_000, interval: 5 };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: ServeListenerOptions = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-listener-'));
  const path = join(dir, 's.sock');
  const listener = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((resolve) => listener.listen(path, resolve));
  const logger = memoryLogger();
  const inner = testHandler();
  // Records each request as the handler starts it: close() is called only once work is in flight.
  const started: string[] = [];
  const starts = new EventEmitter();
  const handler = {
    ...inner,
    handle: (...args: Parameters<typeof inner.handle>) => {
      started.push(args[0].method);
      starts.emit(args[0].method);
      return inner.handle(...args);
    },
  };
  /** Resolves once the handler has started a `method` request. */
  const handling = async (method: string): Promise<void> => {
    if (!started.includes(method)) await once(starts, method);
  };
  const core = createServerCore({ handler, serverInfo: { name: 't', version: '1' }, logger });
  const events: string[] = [];
  const served: ListenerServer = serveListener<net.Socket>(
    {
      transport: 'test-sock',
      where: { path },
      onConnection: (accept) => listener.on('connection', accept),
      onError: (report) => listener.on('error', report),
      peerAttributes: () => ({ path, site: 'kernel' }),
      stop: () =>
        new Promise<void>((resolve) =>
          listener.close(() => {
            events.push('stopped');
            resolve();
          }),
        ),
      cleanup: async () => {
        events.push('cleanup');
      },
    },
    core,
    options,
  );
  const clients: net.Socket[] = [];
  const raw = (): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ path, allowHalfOpen: true });
      clients.push(socket);
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
  cleanups.push(async () => {
    for (const socket of clients) socket.destroy();
    await served.close(0);
    await rm(dir, { recursive: true, force: true });
  });
  return {
    listener,
    served,
    handler,
    logger,
    events,
    handling,
    raw,
    connect: async () => new NdjsonClient(await raw()),
  };
}

describe('serveListener', () => {
  it('serves each peer as management with its transport, and the kernel facts win over options.attributes', async () => {
    const { connect, handler, served } = await setup({ attributes: { site: 'option', rack: 7 } });
    const client = await connect();
    const echo = await client.modern('test/echo', {});
    expect(echo.result).toMatchObject({ origin: 'management', transport: 'test-sock' });
    expect(handler.state.connects[0]?.attributes).toMatchObject({ site: 'kernel', rack: 7 });
    expect(served.connections).toBe(1);
    client.close();
    await vi.waitFor(
      () => expect(served.connections, 'the server to let go of the peer').toBe(0),
      SERVER_SIDE,
    );
  });

  it('refuses connections beyond maxConnections at accept, logs it, and keeps serving the others', async () => {
    const { connect, logger, served } = await setup({ maxConnections: 1 });
    const first = await connect();
    await first.modern('test/echo', {});
    const second = await connect();
    await second.closed();
    expect(second.messages).toEqual([]);
    expect(served.connections).toBe(1);
    const refusal = logger.records.find(
      (r) => r.message === 'test-sock connection refused: connection limit reached',
    );
    expect(refusal).toMatchObject({ level: 'warning', fields: { maxConnections: 1 } });
    expect((await first.modern('test/echo', { again: true })).result).toMatchObject({
      params: { again: true },
    });
  });

  it('close() lets in-flight requests finish, answers them, stops the listener, then cleans up', async () => {
    const { connect, served, events, handling } = await setup();
    const client = await connect();
    await client.modern('test/echo', {});
    const slow = client.modern('test/slow', { ms: 50, tag: 'last' });
    await handling('test/slow');
    const closed = served.close(5_000);
    expect(served.close()).toBe(closed);
    expect((await slow).result).toMatchObject({ slept: 50, tag: 'last' });
    await closed;
    await client.closed();
    expect(events).toEqual(['stopped', 'cleanup']);
    expect(served.connections).toBe(0);
  });

  it('flushes a large final answer to a peer that reads slowly, within the deadline', async () => {
    const { connect, served, handling } = await setup();
    const client = await connect();
    await client.modern('test/echo', {});
    const bytes = 4 * 1024 * 1024;
    client.stream.pause();
    const big = client.modern('test/big', { bytes });
    // The answer is with the writer (most of it queued in user space) before close() starts.
    await handling('test/big');
    await new Promise((resolve) => setImmediate(resolve));
    const closed = served.close(10_000);
    setImmediate(() => client.stream.resume());
    const answer = await big;
    expect(String(answer.result?.data).length).toBe(bytes);
    await closed;
  });

  it('cuts off a peer that stopped reading once the deadline has passed', async () => {
    const { connect, served, handling } = await setup();
    const client = await connect();
    await client.modern('test/echo', {});
    client.stream.pause();
    void client.modern('test/big', { bytes: 16 * 1024 * 1024 }).catch(() => {});
    await handling('test/big');
    // The peer never reads again: close() still resolves, bounded by its deadline.
    await served.close(100);
    await vi.waitFor(
      () => expect(served.connections, 'the server to let go of the peer').toBe(0),
      SERVER_SIDE,
    );
  });

  it('destroys connections that arrive while closing', async () => {
    const { raw, served, handler } = await setup();
    const closed = served.close(1_000);
    const late = await raw().catch(() => undefined);
    await closed;
    if (late !== undefined) {
      await vi.waitFor(
        () => expect(late.destroyed || late.readableEnded, 'the late connection to be cut').toBe(true),
        SERVER_SIDE,
      );
    }
    expect(handler.state.connects).toEqual([]);
  });

  it('logs listener errors through the core logger', async () => {
    const { listener, logger } = await setup();
    listener.emit('error', new Error('listener broke'));
    const record = logger.records.find((r) => r.message === 'test-sock listener error');
    expect(record?.level).toBe('error');
    expect(record?.fields.error).toBeInstanceOf(Error);
    expect((record?.fields.error as Error | undefined)?.message).toBe('listener broke');
  });
});
