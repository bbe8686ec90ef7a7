/** bindUnix / serveUnix / dialUnix over real unix sockets. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { type JsonObject, JsonRpcErrorCode, WireError } from '@agentd/rpc-frame';
import { createServerCore, type Handler, type ServerCore, silentLogger } from '@agentd/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bindUnix } from './bind-unix.js';
import { dialUnix } from './connect-unix.js';
import { serveUnix, type UnixServer } from './serve-unix.js';

let dir: string;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentd-unix-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** Resolvers of tests waiting for a `slow` request to reach the handler. */
const slowStarted: Array<() => void> = [];
const nextSlowStart = (): Promise<void> => new Promise((resolve) => slowStarted.push(resolve));
/** Releases of the parked `slow` requests: each finishes when the test lets it, or on abort. */
const slowGates: Array<() => void> = [];

/** A tiny handler: `slow` parks until released or aborted (and reports that it started), `origin` reports the peer's trust domain. */
function handler(): Handler {
  return {
    capabilities: () => ({ tools: { listChanged: true }, resources: { subscribe: true } }),
    canSubscribe: () => true,
    handle: async (request, ctx): Promise<JsonObject> => {
      if (request.method === 'origin') return { origin: ctx.peer.origin, transport: ctx.peer.transport };
      if (request.method === 'slow') {
        for (const resolve of slowStarted.splice(0)) resolve();
        await new Promise<void>((resolve) => {
          slowGates.push(resolve);
          ctx.signal.addEventListener('abort', () => resolve());
        });
        return { done: true };
      }
      throw new WireError(JsonRpcErrorCode.MethodNotFound, 'Method not found');
    },
  };
}

function core(): ServerCore {
  return createServerCore({
    handler: handler(),
    serverInfo: { name: 'unix-test', version: '1' },
    logger: silentLogger,
  });
}

async function serve(path: string, c = core()): Promise<UnixServer> {
  const server = serveUnix(await bindUnix(path), c);
  cleanups.push(() => server.close(1_000));
  return server;
}

/** Sends lines, resolves with the first `count` parsed lines received. */
function exchange(
  socket: net.Socket,
  lines: string[],
  count: number,
): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const out: Array<Record<string, unknown>> = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        out.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
      }
      if (out.length >= count) resolve(out.slice(0, count));
    });
    socket.on('error', reject);
    for (const line of lines) socket.write(`${line}\n`);
  });
}

describe('bindUnix', () => {
  it('creates the socket with mode 0600 by default, or the mode asked for', async () => {
    const a = join(dir, 'a.sock');
    await serve(a);
    expect((await stat(a)).mode & 0o777).toBe(0o600);
    const b = join(dir, 'b.sock');
    const listener = await bindUnix(b, { mode: 0o660 });
    cleanups.push(() => new Promise((resolve) => listener.close(() => resolve())));
    expect((await stat(b)).mode & 0o777).toBe(0o660);
  });

  it('replaces a stale socket file nobody listens on', async () => {
    const path = join(dir, 'stale.sock');
    // A socket file left behind by a server process that was killed (SIGKILL leaves the file).
    const child = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.stdout.write('ready'))`,
    ]);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect((await stat(path)).isSocket()).toBe(true);
    await serve(path);
    const socket = await dialUnix(path);
    cleanups.push(async () => void socket.destroy());
    const [pong] = await exchange(socket, ['{"jsonrpc":"2.0","id":1,"method":"ping"}'], 1);
    expect(pong).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('never steals a live socket: clear error, the running server keeps serving', async () => {
    const path = join(dir, 'live.sock');
    await serve(path);
    await expect(bindUnix(path)).rejects.toMatchObject({ name: 'LocalError', code: 'address_in_use' });
    const socket = await dialUnix(path);
    cleanups.push(async () => void socket.destroy());
    const [pong] = await exchange(socket, ['{"jsonrpc":"2.0","id":1,"method":"ping"}'], 1);
    expect(pong?.result).toEqual({});
  });

  it('refuses a path that exists and is not a socket', async () => {
    const path = join(dir, 'file.txt');
    await writeFile(path, 'precious');
    await expect(bindUnix(path)).rejects.toMatchObject({ code: 'not_a_socket' });
    expect((await stat(path)).isFile()).toBe(true);
  });
});

describe('serveUnix', () => {
  it('serves peers in the management trust domain, both eras', async () => {
    const path = join(dir, 's.sock');
    await serve(path);
    const socket = await dialUnix(path);
    cleanups.push(async () => void socket.destroy());
    const modernMeta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const answers = await exchange(
      socket,
      [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}',
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: modernMeta } }),
        '{"jsonrpc":"2.0","id":3,"method":"origin"}',
      ],
      3,
    );
    const byId = new Map(answers.map((m) => [m.id, m]));
    expect(byId.get(1)?.result).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(byId.get(2)?.result).toMatchObject({ resultType: 'complete' });
    expect(byId.get(3)?.result).toEqual({ origin: 'management', transport: 'unix' });
  });

  it('pushes to legacy subscribers and modern listen streams; a disconnect removes them', async () => {
    const path = join(dir, 'push.sock');
    const c = core();
    await serve(path, c);
    const legacy = await dialUnix(path);
    const modern = await dialUnix(path);
    cleanups.push(async () => {
      legacy.destroy();
      modern.destroy();
    });
    const legacyAnswers = exchange(
      legacy,
      [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}',
        '{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"agent://status"}}',
      ],
      4,
    );
    const modernAnswers = exchange(
      modern,
      [
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'listen',
          method: 'subscriptions/listen',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
            notifications: { toolsListChanged: true, resourceSubscriptions: ['agent://status'] },
          },
        }),
      ],
      3,
    );
    await vi.waitFor(
      () => {
        expect(c.registry.subscriberCount('agent://status'), 'both subscriptions to register').toBe(2);
      },
      { timeout: 10_000, interval: 5 },
    );
    expect(c.notifyListChanged('tools')).toBe(2);
    expect(c.notifyResourceUpdated('agent://status')).toBe(2);
    const [, , first, second] = await legacyAnswers;
    expect([first?.method, second?.method].sort()).toEqual([
      'notifications/resources/updated',
      'notifications/tools/list_changed',
    ]);
    const [ack, ...pushed] = await modernAnswers;
    expect(ack?.method).toBe('notifications/subscriptions/acknowledged');
    for (const message of pushed) {
      expect(message.params).toMatchObject({ _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen' } });
    }
    // One-shot consumed the legacy subscription; the open listen stream keeps the uris it declared.
    expect(c.notifyResourceUpdated('agent://status')).toBe(1);
    legacy.destroy();
    modern.destroy();
    await vi.waitFor(
      () => {
        expect(c.connectionCount, 'both connections to close').toBe(0);
      },
      { timeout: 10_000, interval: 5 },
    );
    expect(c.registry.stats()).toEqual({ uris: 0, subscriptions: 0, channels: 0, listenStreams: 0 });
    expect(c.notifyListChanged('tools')).toBe(0);
  });

  it('close() drains in-flight requests, closes connections and removes the socket file', async () => {
    const path = join(dir, 'drain.sock');
    const server = serveUnix(await bindUnix(path), core());
    const socket = await dialUnix(path);
    const started = nextSlowStart();
    const answered = exchange(socket, ['{"jsonrpc":"2.0","id":"s","method":"slow"}'], 1);
    await started;
    const ended = new Promise<void>((resolve) => socket.on('end', () => resolve()));
    let closed = false;
    const closing = server.close(5_000).then(() => {
      closed = true;
    });
    await setImmediate();
    expect(closed, 'close() waits for the request in flight').toBe(false);
    for (const release of slowGates.splice(0)) release();
    await closing;
    expect((await answered)[0]).toEqual({ jsonrpc: '2.0', id: 's', result: { done: true } });
    await ended;
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(dialUnix(path, { timeoutMs: 500 })).rejects.toMatchObject({ code: 'connect_failed' });
  });

  it('close() past its deadline stops waiting and still closes everything', async () => {
    const path = join(dir, 'deadline.sock');
    const server = serveUnix(await bindUnix(path), core());
    const socket = await dialUnix(path);
    const started = nextSlowStart();
    const answered = exchange(socket, ['{"jsonrpc":"2.0","id":"s","method":"slow"}'], 1);
    await started;
    const ended = new Promise<void>((resolve) => socket.on('end', () => resolve()));
    await server.close(50);
    // Cut short, the request is told why rather than left without an answer.
    expect((await answered)[0]).toEqual({
      jsonrpc: '2.0',
      id: 's',
      error: { code: -32000, message: 'Connection is closing' },
    });
    await ended;
    expect(server.connections).toBe(0);
  });

  it('counts open connections and refuses those beyond maxConnections at accept', async () => {
    const path = join(dir, 'limit.sock');
    const server = serveUnix(await bindUnix(path), core(), { maxConnections: 1 });
    cleanups.push(() => server.close(1_000));
    const first = await dialUnix(path);
    cleanups.push(async () => void first.destroy());
    const [pong] = await exchange(first, ['{"jsonrpc":"2.0","id":1,"method":"ping"}'], 1);
    expect(pong).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(server.connections).toBe(1);
    const second = await dialUnix(path);
    cleanups.push(async () => void second.destroy());
    // Refused at accept: the server closes it without a word.
    await new Promise<void>((resolve) => second.once('end', () => resolve()).resume());
    expect(server.connections).toBe(1);
    const [again] = await exchange(first, ['{"jsonrpc":"2.0","id":2,"method":"ping"}'], 1);
    expect(again).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('serves 1,000 concurrent connections', async () => {
    const path = join(dir, 'many.sock');
    const c = core();
    await serve(path, c);
    const count = 1_000;
    const sockets = await Promise.all(
      Array.from({ length: count }, () => dialUnix(path, { timeoutMs: 20_000 })),
    );
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
    });
    const answers = await Promise.all(
      sockets.map((socket, i) =>
        exchange(
          socket,
          [
            `{"jsonrpc":"2.0","id":${i},"method":"resources/subscribe","params":{"uri":"agent://status"}}`,
            `{"jsonrpc":"2.0","id":"p${i}","method":"ping"}`,
          ],
          2,
        ),
      ),
    );
    expect(
      answers.every((pair, i) => pair.some((m) => m.id === i) && pair.some((m) => m.id === `p${i}`)),
    ).toBe(true);
    expect(c.connectionCount).toBe(count);
    expect(c.registry.subscriberCount('agent://status')).toBe(count);
    expect(c.notifyResourceUpdated('agent://status')).toBe(count);
  }, 30_000);
});

describe('dialUnix', () => {
  it('rejects clearly, naming the cause, when nobody listens', async () => {
    const path = join(dir, 'nobody.sock');
    await expect(dialUnix(path)).rejects.toMatchObject({
      name: 'LocalError',
      code: 'connect_failed',
      message: expect.stringContaining('ENOENT'),
    });
  });
});
