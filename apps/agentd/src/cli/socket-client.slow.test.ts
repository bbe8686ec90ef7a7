/** The CLI's socket client against a scripted daemon on a real unix socket. */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MetaKey } from '@agentd/lifecycle';
import { type JsonRpcNotification, LocalError, WireError } from '@agentd/rpc-frame';
import { NdjsonClient } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from './mcp-client.js';
import { SocketClient } from './socket-client.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A CLI client connected to a scripted daemon: the test client on the daemon's end of the socket. */
async function connected(): Promise<{ client: SocketClient; daemon: NdjsonClient }> {
  const path = join(mkdtempSync(join(tmpdir(), 'agentd-socket-client-')), 's.sock');
  const daemons: NdjsonClient[] = [];
  const accepted = new Promise<NdjsonClient>((resolve) => {
    const server: Server = createServer((socket) => {
      const daemon = new NdjsonClient(socket);
      daemons.push(daemon);
      resolve(daemon);
    });
    server.listen(path);
    closers.push(async () => {
      for (const daemon of daemons) daemon.close();
      server.close();
      await once(server, 'close');
    });
  });
  const client = await SocketClient.connect(path, '1.2.3');
  return { client, daemon: await accepted };
}

const progress = (progressToken: string, n: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken, progress: n },
});

describe('SocketClient', () => {
  it('passes the notifications of a call to it, and answers with its result or a WireError', async () => {
    const { client, daemon } = await connected();
    const seen: unknown[] = [];
    const onNotification = (n: JsonRpcNotification) => seen.push(n.params?.progress ?? n.params?.data);
    const failing = client.request('fail', { _meta: { progressToken: 't1' } }, { onNotification });
    const first = await daemon.waitFor((m) => m.method === 'fail');
    daemon.send(progress('other', 9));
    daemon.send(progress('t1', 1));
    daemon.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } });
    daemon.send({ jsonrpc: '2.0', id: first.id, error: { code: -32602, message: 'nope' } });
    await expect(failing).rejects.toEqual(new WireError(-32602, 'nope'));
    expect(seen).toEqual([1, 'hi']);

    const going = client.request('go', { _meta: { progressToken: 't2' } }, { onNotification });
    const second = await daemon.waitFor((m) => m.method === 'go');
    daemon.send(progress('t2', 2));
    // The last answer has no newline: the daemon ends the connection after it.
    daemon.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: second.id, result: { done: true } }));
    daemon.end();
    expect(await going).toEqual({ done: true });
    expect(seen).toEqual([1, 'hi', 2]);
    client.close();
  });

  it('on abort sends notifications/cancelled with the CLI meta and rejects with an AbortedError', async () => {
    const { client, daemon } = await connected();
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'x' }, { signal: controller.signal });
    const request = await daemon.waitFor((m) => m.method === 'tools/call');
    controller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: 'aborted', message: 'tools/call cancelled' });
    const cancel = await daemon.waitFor((m) => m.method === 'notifications/cancelled');
    expect(cancel.params).toMatchObject({
      requestId: request.id,
      reason: 'cancelled by the agentd CLI',
      _meta: { [MetaKey.clientInfo]: { name: 'agentd-cli', version: '1.2.3' } },
    });
    await expect(client.request('x', {}, { signal: AbortSignal.abort() })).rejects.toThrow(
      'aborted before it was sent',
    );
    client.close();
  });

  it('answers a request from the daemon with -32601, and fails what is pending when the daemon goes', async () => {
    const { client, daemon } = await connected();
    const pending = client.request('hang');
    await daemon.waitFor((m) => m.method === 'hang');
    daemon.send({ jsonrpc: '2.0', id: 'd1', method: 'roots/list' });
    const answer = await daemon.waitFor((m) => m.id === 'd1');
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 'd1',
      error: { code: -32601, message: 'Method not found' },
    });
    daemon.close();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect(error).toMatchObject({ code: 'daemon_unreachable', message: 'connection closed by agentd' });
    await expect(client.request('again')).rejects.toThrow('connection closed by agentd');
  });
});
