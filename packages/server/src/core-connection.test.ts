/** CoreConnection.handle driven directly, the way the HTTP transport drives it (one connection per POST). */
import { PassThrough } from 'node:stream';
import type { JsonRpcMessage, JsonRpcRequest } from '@agentd/rpc-frame';
import { ndjsonWriter } from '@agentd/subscriptions';
import { MODERN_META, memoryLogger, testHandler } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import type { Peer } from './handler.js';
import { createServerCore } from './server-core.js';

function open(id: string) {
  const handler = testHandler();
  const core = createServerCore({ handler, serverInfo: { name: 't', version: '1' }, logger: memoryLogger() });
  const peer: Peer = { origin: 'management', connectionId: id, transport: 'http', attributes: {} };
  const stream = new PassThrough();
  const written: JsonRpcMessage[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') written.push(JSON.parse(line));
  });
  return { core, handler, connection: core.openConnection(peer, ndjsonWriter(stream, { id })), written };
}

const request = (method: string, params?: Record<string, unknown>, id: string | number = 1) => ({
  kind: 'request' as const,
  message: (params === undefined
    ? { jsonrpc: '2.0', id, method }
    : { jsonrpc: '2.0', id, method, params }) as JsonRpcRequest,
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CoreConnection.handle (HTTP-style use)', () => {
  it('sends legacy server-to-client requests through options.notify and routes the answer back', async () => {
    const { connection, written } = open('session-1');
    const sent: JsonRpcMessage[] = [];
    const pending = connection.handle(request('test/ask', {}, 'a'), { notify: (m) => sent.push(m) });
    await tick();
    const asked = sent[0] as JsonRpcRequest;
    expect(asked).toMatchObject({ jsonrpc: '2.0', method: 'roots/list', params: {} });
    // The answer arrives later, on the same logical connection (another POST in the session).
    expect(
      await connection.handle({
        kind: 'response',
        message: { jsonrpc: '2.0', id: asked.id, result: { roots: [] } },
      }),
    ).toBeUndefined();
    expect(await pending).toEqual({ jsonrpc: '2.0', id: 'a', result: { answer: { roots: [] } } });
    expect(written).toEqual([]);
  });

  it('an aborted signal cancels the request: no response, and nothing written afterwards', async () => {
    const { connection, handler, written } = open('post-1');
    const controller = new AbortController();
    const pending = connection.handle(request('test/block', {}, 'b'), { signal: controller.signal });
    await tick();
    controller.abort();
    expect(await pending).toBeUndefined();
    expect(handler.state.aborted).toEqual(['b']);
    const late = new AbortController();
    late.abort();
    expect(
      await connection.handle(request('test/slow', { ms: 1 }, 'c'), { signal: late.signal }),
    ).toBeUndefined();
    expect(written).toEqual([]);
  });

  it('a listen stream resolves undefined on abort, and with its final result on graceful close', async () => {
    const first = open('listen-1');
    const controller = new AbortController();
    const aborted = first.connection.handle(
      request('subscriptions/listen', { _meta: MODERN_META, notifications: { toolsListChanged: true } }, 'L'),
      { signal: controller.signal },
    );
    await tick();
    controller.abort();
    expect(await aborted).toBeUndefined();
    expect(first.core.notifyListChanged('tools')).toBe(0);
    await tick();
    expect(first.written.map((m) => ('method' in m ? m.method : 'response'))).toEqual([
      'notifications/subscriptions/acknowledged',
    ]);

    const second = open('listen-2');
    const graceful = second.connection.handle(
      request('subscriptions/listen', { _meta: MODERN_META, notifications: { toolsListChanged: true } }, 3),
    );
    await tick();
    second.connection.close({ graceful: true });
    second.connection.close();
    expect(await graceful).toMatchObject({ id: 3, result: { resultType: 'complete' } });
    expect(second.handler.state.disconnects).toHaveLength(1);
    expect(second.core.connectionCount).toBe(0);
  });

  it('keeps the context usable when copied or destructured', async () => {
    const { connection } = open('spread');
    const sent: JsonRpcMessage[] = [];
    const response = await connection.handle(request('test/spread', {}, 's'), {
      notify: (m) => sent.push(m),
    });
    expect(response).toEqual({ jsonrpc: '2.0', id: 's', result: { signal: true, canAsk: true } });
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'destructured' } },
    ]);
  });

  it('answers invalid frames and refuses requests on a closed connection', async () => {
    const { connection } = open('x');
    expect(await connection.handle({ kind: 'invalid', code: -32700, reason: 'nope', id: null })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    connection.close();
    expect(await connection.handle(request('ping'))).toMatchObject({ error: { code: -32000 } });
  });

  it('refuses a second open connection with the same id and reports the configured versions', () => {
    const { core } = open('dup');
    expect(() =>
      core.openConnection(
        { origin: 'stdio', connectionId: 'dup', transport: 'x', attributes: {} },
        ndjsonWriter(new PassThrough()),
      ),
    ).toThrow(/already open/);
    expect(core.supportedVersions()).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
  });

  it('mints connection ids unique per core, skipping one an embedder already chose', () => {
    const { core } = open('x');
    const first = core.mintConnectionId('http');
    expect(first).toMatch(/^http-[0-9a-f]{6}-1$/);
    // An embedder's own id of the same shape is open: the core does not hand it out again.
    const next = first.replace(/-1$/, '-2');
    core.openConnection(
      { origin: 'stdio', connectionId: next, transport: 'http', attributes: {} },
      ndjsonWriter(new PassThrough()),
    );
    const ids = new Set([first, next]);
    for (let i = 0; i < 1_000; i++) ids.add(core.mintConnectionId(i % 2 === 0 ? 'http' : 'unix'));
    expect(ids.size).toBe(1_002);
    // Another core's ids differ, so ids kept beyond one process (a task's creator) do not collide.
    expect(open('y').core.mintConnectionId('http')).not.toBe(first);
  });
});
