/** Benchmark: the addon's socket (uv_poll + Duplex) against net.Socket on the same AF_UNIX path. */
import { once } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, bench, describe } from 'vitest';
import { bindUnixViaAddon, connectUnixViaAddon, tempSocketPath } from './test-support/unix-stand-in.js';
import type { VsockListener } from './vsock-listener.js';

const BULK_BYTES = 16 * 1024 * 1024;
const ROUND_TRIPS = 2_000;
const options = { time: 1500, warmupTime: 300 };
const block = Buffer.alloc(64 * 1024, 0x61);
const line = Buffer.from(
  `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(64) } })}\n`,
);

let addonPath: { path: string; cleanup: () => void };
let netPath: { path: string; cleanup: () => void };
let addonListener: VsockListener;
let netServer: net.Server;

/** Echo server: every byte comes back (the NDJSON request/response shape, minus the JSON work). */
function echo(socket: Duplex): void {
  socket.pipe(socket);
}

beforeAll(async () => {
  addonPath = tempSocketPath();
  netPath = tempSocketPath();
  addonListener = bindUnixViaAddon(addonPath.path);
  addonListener.on('connection', echo);
  netServer = net.createServer(echo);
  netServer.listen(netPath.path);
  await once(netServer, 'listening');
});

afterAll(() => {
  addonListener.close();
  netServer.close();
  addonPath.cleanup();
  netPath.cleanup();
});

async function bulk(client: Duplex): Promise<void> {
  let received = 0;
  const done = new Promise<void>((resolve) =>
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= BULK_BYTES) resolve();
    }),
  );
  for (let sent = 0; sent < BULK_BYTES; sent += block.length) {
    if (!client.write(block)) await once(client, 'drain');
  }
  await done;
  client.destroy();
}

async function pingPong(client: Duplex): Promise<void> {
  for (let i = 0; i < ROUND_TRIPS; i++) {
    client.write(line);
    let got = 0;
    while (got < line.length) got += ((await once(client, 'data')) as [Buffer])[0].length;
  }
  client.destroy();
}

async function addonClient(): Promise<Duplex> {
  const client = connectUnixViaAddon(addonPath.path);
  await once(client, 'connect');
  return client;
}

async function netClient(): Promise<Duplex> {
  const client = net.connect(netPath.path);
  await once(client, 'connect');
  return client;
}

describe(`bulk echo, ${BULK_BYTES / 1024 / 1024} MiB`, () => {
  bench('net.Socket (reference)', async () => bulk(await netClient()), options);
  bench('addon VsockSocket', async () => bulk(await addonClient()), options);
});

describe(`request/response, ${ROUND_TRIPS} round trips`, () => {
  bench('net.Socket (reference)', async () => pingPong(await netClient()), options);
  bench('addon VsockSocket', async () => pingPong(await addonClient()), options);
});
