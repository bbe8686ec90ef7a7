/**
 * A peer that answers with more than a client takes: every client settles the request with an
 * error that says why (the adversarial server as a test, over real sockets and HTTP).
 */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { NdjsonClient } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/cli/http-client.js';
import { SocketClient } from '../src/cli/socket-client.js';

const LIMIT = 64 * 1024;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A unix socket server that answers each request line with `answer(id)`, as it is. */
async function ndjsonServer(answer: (id: unknown) => string): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'agentd-oversized-')), 's.sock');
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as { id?: unknown };
        if (message.id !== undefined) socket.write(answer(message.id));
      }
    });
  });
  server.listen(path);
  await once(server, 'listening');
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  });
  return path;
}

const huge = (id: unknown, bytes: number) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, result: { text: 'x'.repeat(bytes) } })}\n`;

describe('the CLI socket client', () => {
  it('rejects every pending request when an answer passes its frame limit', async () => {
    const path = await ndjsonServer((id) => huge(id, LIMIT * 2));
    const client = await SocketClient.connect(path, '0', LIMIT);
    const first = client.request('resources/read', { uri: 'agent://inventory' });
    const second = client.request('tools/list');
    for (const pending of [first, second]) {
      const error = await pending.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LocalError);
      expect((error as LocalError).code).toBe('frame_too_large');
      expect((error as Error).message).toBe(`response too large (limit ${LIMIT} bytes)`);
    }
    // The connection is done: a later request fails at once with the same reason.
    await expect(client.request('ping')).rejects.toThrow('response too large');
    client.close();
  });

  it('settles with the default 16 MiB limit too (the daemon-sized answer of the issue)', async () => {
    const path = await ndjsonServer((id) => huge(id, 17 * 1024 * 1024));
    const client = await SocketClient.connect(path);
    await expect(client.request('resources/read', { uri: 'agent://inventory' })).rejects.toThrow(
      `response too large (limit ${16 * 1024 * 1024} bytes)`,
    );
    client.close();
  });

  it('still takes answers within the limit', async () => {
    const path = await ndjsonServer((id) => huge(id, LIMIT / 2));
    const client = await SocketClient.connect(path, '0', LIMIT);
    const result = await client.request('ping');
    expect((result.text as string).length).toBe(LIMIT / 2);
    client.close();
  });
});

describe('the test-support NDJSON client', () => {
  it('fails its waits when a line passes its frame limit', async () => {
    const path = await ndjsonServer((id) => huge(id, LIMIT * 2));
    const client = await NdjsonClient.connect(path, LIMIT);
    await expect(client.request('ping')).rejects.toThrow(`response too large (limit ${LIMIT} bytes)`);
    client.close();
  });
});

async function httpServer(body: (id: unknown) => { type: string; text: string }): Promise<string> {
  const server: HttpServer = createHttpServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      const { type, text: answer } = body((JSON.parse(text) as { id: unknown }).id);
      res.writeHead(200, { 'content-type': type });
      res.on('error', () => {});
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/mcp`;
}

describe('the CLI HTTP client', () => {
  it('refuses a JSON answer past its limit', async () => {
    const url = await httpServer((id) => ({ type: 'application/json', text: huge(id, LIMIT * 2) }));
    const client = new HttpClient(url, undefined, '0', LIMIT);
    await expect(client.request('ping')).rejects.toThrow(`response too large (limit ${LIMIT} bytes)`);
    client.close();
  });

  it('refuses a server-sent event past its limit', async () => {
    const url = await httpServer((id) => ({
      type: 'text/event-stream',
      text: `event: message\ndata: ${huge(id, LIMIT * 2).trimEnd()}\n\n`,
    }));
    const client = new HttpClient(url, undefined, '0', LIMIT);
    await expect(client.request('ping')).rejects.toThrow(`response too large (limit ${LIMIT} bytes)`);
    client.close();
  });

  it('takes answers within the limit', async () => {
    const url = await httpServer((id) => ({ type: 'application/json', text: huge(id, 100) }));
    const client = new HttpClient(url, undefined, '0', LIMIT);
    expect((await client.request('ping')).text).toBe('x'.repeat(100));
  });
});
