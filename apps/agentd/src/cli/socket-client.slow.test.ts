/** The CLI's socket client against a scripted daemon on a real unix socket. */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MetaKey } from '@agentd/lifecycle';
import { LocalError, WireError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from './mcp-client.js';
import { SocketClient } from './socket-client.js';

type Line = { id?: number; method?: string; params?: Record<string, unknown> };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A daemon that hands each line it reads, and the socket, to `script`; `seen` keeps the lines and
 * `lines(n)` resolves once it has read n of them.
 */
async function daemon(script: (line: Line, socket: Socket) => void) {
  const path = join(mkdtempSync(join(tmpdir(), 'agentd-socket-client-')), 's.sock');
  const seen: Line[] = [];
  const waiters: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = JSON.parse(buffer.slice(0, nl)) as Line;
        buffer = buffer.slice(nl + 1);
        seen.push(line);
        script(line, socket);
        for (const wake of waiters.splice(0)) wake();
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
  const lines = async (count: number): Promise<void> => {
    while (seen.length < count) await new Promise<void>((wake) => waiters.push(wake));
  };
  return { path, seen, lines };
}

const send = (socket: Socket, message: object) =>
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

describe('SocketClient', () => {
  it('passes the notifications of a call to it, and answers with its result or a WireError', async () => {
    const { path } = await daemon((line, socket) => {
      if (line.method === 'notifications/cancelled') return;
      const token = (line.params?._meta as { progressToken?: string } | undefined)?.progressToken;
      send(socket, { method: 'notifications/progress', params: { progressToken: 'other', progress: 9 } });
      send(socket, { method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
      send(socket, { method: 'notifications/message', params: { level: 'info', data: 'hi' } });
      if (line.method === 'fail') send(socket, { id: line.id, error: { code: -32602, message: 'nope' } });
      // The last answer has no newline until the daemon closes the connection.
      else socket.end(JSON.stringify({ jsonrpc: '2.0', id: line.id, result: { done: true } }));
    });
    const client = await SocketClient.connect(path, '1.2.3');
    const seen: unknown[] = [];
    const onNotification = (n: { method: string; params?: Record<string, unknown> }) =>
      seen.push(n.params?.progress ?? n.params?.data);
    await expect(
      client.request('fail', { _meta: { progressToken: 't1' } }, { onNotification }),
    ).rejects.toEqual(new WireError(-32602, 'nope'));
    expect(seen).toEqual([1, 'hi']);
    expect(await client.request('go', { _meta: { progressToken: 't2' } }, { onNotification })).toEqual({
      done: true,
    });
    expect(seen).toEqual([1, 'hi', 1, 'hi']);
    client.close();
  });

  it('on abort sends notifications/cancelled with the CLI meta and rejects with an AbortedError', async () => {
    const { path, seen, lines } = await daemon(() => {});
    const client = await SocketClient.connect(path, '1.2.3');
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'x' }, { signal: controller.signal });
    await lines(1);
    controller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: 'aborted', message: 'tools/call cancelled' });
    await lines(2);
    expect(seen[1]).toMatchObject({
      method: 'notifications/cancelled',
      params: {
        requestId: seen[0]?.id,
        reason: 'cancelled by the agentd CLI',
        _meta: { [MetaKey.clientInfo]: { name: 'agentd-cli', version: '1.2.3' } },
      },
    });
    await expect(client.request('x', {}, { signal: AbortSignal.abort() })).rejects.toThrow(
      'aborted before it was sent',
    );
    client.close();
  });

  it('answers a request from the daemon with -32601, and fails what is pending when the daemon goes', async () => {
    const { path, seen, lines } = await daemon((line, socket) => {
      if (line.method === 'hang') send(socket, { id: 'd1', method: 'roots/list' });
      else socket.destroy();
    });
    const client = await SocketClient.connect(path);
    const pending = client.request('hang');
    await lines(2);
    expect(seen[1]).toEqual({
      jsonrpc: '2.0',
      id: 'd1',
      error: { code: -32601, message: 'Method not found' },
    });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toMatchObject({ code: 'daemon_unreachable', message: 'connection closed by agentd' });
    await expect(client.request('again')).rejects.toThrow('connection closed by agentd');
  });
});
