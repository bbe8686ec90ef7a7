/** Accepting, closing and resource hygiene of the listener, on the AF_UNIX stand-in. */
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { vsockAddonInfo } from './native.js';
import {
  bindUnixViaAddon,
  connectUnixViaAddon,
  openFdCount,
  tempSocketPath,
} from './test-support/unix-stand-in.js';
import type { VsockListener } from './vsock-listener.js';
import type { VsockSocket } from './vsock-socket.js';

let socketPath: { path: string; cleanup: () => void };
let listener: VsockListener;

beforeEach(() => {
  socketPath = tempSocketPath();
  listener = bindUnixViaAddon(socketPath.path);
});

afterEach(() => {
  listener.close();
  socketPath.cleanup();
});

const threadCount = () => readdirSync('/proc/self/task').length;

/** One full connection: connect, one byte each way, both ends closed. */
async function roundTrip(path: string): Promise<void> {
  const client = connectUnixViaAddon(path);
  const closed = once(client, 'close');
  client.end('x');
  client.resume();
  await closed;
}

describe('VsockListener', () => {
  it('opens and closes 1,000 connections without leaking fds or threads', async () => {
    listener.on('connection', (socket: VsockSocket) => {
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
      socket.on('end', () => socket.end());
    });
    await roundTrip(socketPath.path); // warm-up: lazily opened runtime fds are not leaks
    const fds = openFdCount();
    const threads = threadCount();
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(Array.from({ length: 50 }, () => roundTrip(socketPath.path)));
    }
    // Server-side sockets close on the next loop turns after their clients.
    await vi.waitFor(
      () => {
        expect(openFdCount(), 'the server-side sockets to close').toBe(fds);
      },
      { timeout: 10_000, interval: 10 },
    );
    expect(threadCount()).toBe(threads);
  });

  it('close() stops accepting, emits close, and leaves accepted connections alone', async () => {
    const accepted = once(listener, 'connection') as Promise<[VsockSocket]>;
    const client = connectUnixViaAddon(socketPath.path);
    const [server] = await accepted;
    const closed = once(listener, 'close');
    listener.close();
    listener.close(); // idempotent
    await closed;
    expect(listener.listening).toBe(false);
    // The connection made before close still works.
    server.write('still here');
    const [chunk] = (await once(client, 'data')) as [Buffer];
    expect(chunk.toString()).toBe('still here');
    // New connects are refused: nothing listens on the path any more.
    const late = connectUnixViaAddon(socketPath.path);
    const [error] = (await once(late, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
    client.destroy();
    server.destroy();
  });

  it('closes connections nobody listens for instead of leaking them', async () => {
    const client = connectUnixViaAddon(socketPath.path);
    client.resume();
    await once(client, 'end');
    client.destroy();
  });

  it.each(['exits on its own', 'is terminated'])(
    'a worker thread that %s with open handles does not crash or leak',
    async (how) => {
      const addonPath = vsockAddonInfo()?.file;
      expect(addonPath).toBeDefined();
      const fds = openFdCount();
      const worker = new Worker(
        `const { workerData, parentPort } = require('node:worker_threads');
         const addon = require(workerData.addonPath);
         const l = addon.listen({ family: 'unix', path: workerData.path }, 8);
         l.poll(1, () => {});
         const [c] = addon.connect({ family: 'unix', path: workerData.path });
         c.poll(3, () => {});
         if (workerData.unref) { l.unref(); c.unref(); }
         parentPort.postMessage('ready');`,
        {
          eval: true,
          workerData: { addonPath, path: `${socketPath.path}-w`, unref: how === 'exits on its own' },
        },
      );
      const [message] = await once(worker, 'message');
      expect(message).toBe('ready');
      if (how === 'is terminated') await worker.terminate();
      else expect((await once(worker, 'exit'))[0]).toBe(0);
      // The env cleanup hook closed the worker's sockets.
      expect(openFdCount()).toBeLessThanOrEqual(fds);
    },
  );
});
