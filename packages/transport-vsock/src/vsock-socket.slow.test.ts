/** The Duplex over the addon, end to end on the AF_UNIX stand-in (same native code as vsock). */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { setImmediate } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindUnixViaAddon, connectUnixViaAddon, tempSocketPath } from './test-support/unix-stand-in.js';
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

async function pair(): Promise<{ client: VsockSocket; server: VsockSocket }> {
  const accepted = once(listener, 'connection') as Promise<[VsockSocket]>;
  const client = connectUnixViaAddon(socketPath.path);
  await once(client, 'connect');
  const [server] = await accepted;
  return { client, server };
}

/** Everything up to 'end' (not `for await`, which destroys the stream when done). */
function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

describe('VsockSocket over the addon', () => {
  it('carries bytes both ways and reports a half-close as end', async () => {
    const { client, server } = await pair();
    const closed = Promise.all([once(client, 'close'), once(server, 'close')]);
    client.end('ping');
    expect((await readAll(server)).toString()).toBe('ping');
    // allowHalfOpen is false (as net.Socket): the server side ended too, so the client sees end.
    expect((await readAll(client)).length).toBe(0);
    await closed;
    expect(client.bytesWritten).toBe(4);
    expect(server.bytesRead).toBe(4);
  });

  it('keeps the write side open after the peer ends when allowHalfOpen is set', async () => {
    const accepted = once(listener, 'connection') as Promise<[VsockSocket]>;
    const client = connectUnixViaAddon(socketPath.path, { allowHalfOpen: true });
    const [server] = await accepted;
    server.end('request');
    const reply = await readAll(client);
    expect(reply.toString()).toBe('request');
    expect(client.writable).toBe(true);
    client.end('late answer');
    expect((await readAll(server)).toString()).toBe('late answer');
  });

  it('queues writes and end() made before the connect completes', async () => {
    const accepted = once(listener, 'connection') as Promise<[VsockSocket]>;
    const client = connectUnixViaAddon(socketPath.path);
    expect(client.connecting).toBe(true);
    client.write('early ');
    client.end('bird');
    const [server] = await accepted;
    expect((await readAll(server)).toString()).toBe('early bird');
  });

  it('applies backpressure both ways and delivers 8 MiB intact', async () => {
    const { client, server } = await pair();
    const payload = randomBytes(8 * 1024 * 1024);
    server.pause();
    let sawBackpressure = false;
    let offset = 0;
    while (offset < payload.length) {
      const ok = client.write(payload.subarray(offset, offset + 256 * 1024));
      offset += 256 * 1024;
      if (!ok) {
        sawBackpressure = true;
        break;
      }
    }
    expect(sawBackpressure).toBe(true);
    // Nobody reads: the kernel buffers and ours fill up, and the rest stays with the writer
    // after the loop has had a turn to flush what it could.
    await setImmediate();
    expect(client.writableLength).toBeGreaterThan(0);
    const received = readAll(server);
    server.resume();
    while (offset < payload.length) {
      if (!client.write(payload.subarray(offset, offset + 256 * 1024))) await once(client, 'drain');
      offset += 256 * 1024;
    }
    client.end();
    const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    expect(digest(await received)).toBe(digest(payload));
  });

  it('interoperates with net on the same path (the bytes are a real stream socket)', async () => {
    const accepted = once(listener, 'connection') as Promise<[VsockSocket]>;
    const client = net.connect(socketPath.path);
    const [server] = await accepted;
    server.on('data', (chunk: Buffer) => server.write(chunk.toString().toUpperCase()));
    server.on('end', () => server.end());
    client.end('shout');
    expect((await readAll(client)).toString()).toBe('SHOUT');
  });

  it('destroy() closes both ends: the peer sees end, later writes fail', async () => {
    const { client, server } = await pair();
    const closed = once(client, 'close');
    client.destroy();
    await closed;
    expect(client.destroyed).toBe(true);
    expect((await readAll(server)).length).toBe(0);
    const failed = new Promise<Error>((resolve) => client.write('x', (error) => resolve(error as Error)));
    expect((await failed).message).toMatch(/destroyed/);
    client.on('error', () => {});
  });

  it('destroy(error) emits that error then close', async () => {
    const { client, server } = await pair();
    const boom = new Error('boom');
    const errored = once(client, 'error');
    client.destroy(boom);
    expect((await errored)[0]).toBe(boom);
    server.destroy();
  });

  it('reports a reset peer as an errno error on the writer', async () => {
    const { client, server } = await pair();
    server.destroy();
    await once(server, 'close');
    const errored = once(client, 'error') as Promise<[NodeJS.ErrnoException]>;
    const timer = setInterval(() => client.write(Buffer.alloc(64 * 1024)), 5);
    const [error] = await errored;
    clearInterval(timer);
    expect(['EPIPE', 'ECONNRESET']).toContain(error.code);
    expect(error.syscall).toBe('write');
    expect(client.destroyed).toBe(true);
  });

  it('emits connect errors as error events, never throws', async () => {
    const missing = `${socketPath.path}-missing`;
    const client = connectUnixViaAddon(missing);
    const [error] = (await once(client, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ENOENT');
    expect(error.syscall).toBe('connect');
    expect(error.message).toMatch(/^connect ENOENT/);
  });

  it('destroy() during a pending write completes the write callback with an error', async () => {
    const { client, server } = await pair();
    server.pause();
    const big = Buffer.alloc(4 * 1024 * 1024);
    const result = new Promise<Error | null | undefined>((resolve) => client.write(big, resolve));
    // One loop turn: the write is handed to the socket and waits on the full buffer.
    await setImmediate();
    client.destroy();
    expect(await result).toBeInstanceOf(Error);
    server.destroy();
  });

  it('exposes the local address and unref/ref without error', async () => {
    const { client, server } = await pair();
    expect(client.address()).toEqual({});
    client.unref().ref();
    client.destroy();
    server.destroy();
    expect(client.address()).toEqual({});
  });
});
