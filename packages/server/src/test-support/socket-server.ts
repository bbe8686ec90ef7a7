/** A real unix socket in a temp dir served by serveConnection, for the server's tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NdjsonClient } from '@agentd/test-support';
import type { ServerCore } from '../core-types.js';
import { type ConnectionHandle, type ServeConnectionOptions, serveConnection } from '../serve-connection.js';

export interface SocketServer {
  readonly path: string;
  readonly handles: ConnectionHandle[];
  connect(): Promise<NdjsonClient>;
  /** A raw connected socket (for peers that misbehave). */
  raw(): Promise<net.Socket>;
  close(): Promise<void>;
}

export async function startSocketServer(
  core: ServerCore,
  options: ServeConnectionOptions = {},
): Promise<SocketServer> {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-server-'));
  const path = join(dir, 's.sock');
  const handles: ConnectionHandle[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    handles.push(serveConnection(socket, 'management', core, { transport: 'unix', ...options }));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const clients: net.Socket[] = [];
  const raw = (): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ path, allowHalfOpen: true });
      clients.push(socket);
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
  return {
    path,
    handles,
    raw,
    connect: async () => new NdjsonClient(await raw()),
    close: async () => {
      for (const socket of clients) socket.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
