/** A real unix socket per origin served by a ServerCore, so one test can have management and stdio peers. */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PeerOrigin, type ServerCore, serveConnection } from '@agentd/server';
import { NdjsonClient } from './ndjson-client.js';

export interface SocketHarness {
  connect(origin: PeerOrigin): Promise<NdjsonClient>;
  /** Drops every connection, stops the listeners, closes the core and removes the sockets. */
  close(): Promise<void>;
}

export async function socketHarness(core: ServerCore): Promise<SocketHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-harness-'));
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const paths = new Map<PeerOrigin, string>();
  for (const origin of ['management', 'stdio'] as const) {
    const path = join(dir, `${origin}.sock`);
    const server = net.createServer((socket) => {
      sockets.add(socket);
      serveConnection(socket, origin, core, { transport: 'unix' });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    servers.push(server);
    paths.set(origin, path);
  }
  return {
    connect: async (origin) => {
      const client = await NdjsonClient.connect(paths.get(origin) as string);
      sockets.add(client.stream as net.Socket);
      return client;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await core.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
