import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { createServerCore, silentLogger } from '@agentd/server';
import { LOCALHOST_TLS, toolHandler } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpTransport, serveHttp } from './node.js';
import { type Harness, MODERN_META, modernPost, startHarness } from './test-support/harness.js';

const TOKEN = 'secret-token-for-tests-0001';
const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } };
const MODERN_H = { ...H, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxBodyBytes: 1024, headersTimeoutMs: 300, requestTimeoutMs: 600 });
});
afterAll(async () => {
  await h.close();
});

function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => {
      out += d.toString();
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

describe('request rules common to both eras', () => {
  it('406 when Accept lacks a type, 415 for a non-JSON Content-Type', async () => {
    const a = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, accept: 'application/json' },
      body: JSON.stringify(LIST),
    });
    expect(a.status).toBe(406);
    const b = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, accept: 'text/event-stream' },
      body: JSON.stringify(LIST),
    });
    expect(b.status).toBe(406);
    const c = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, 'content-type': 'text/plain' },
      body: JSON.stringify(LIST),
    });
    expect(c.status).toBe(415);
    const ok = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(LIST),
    });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('413 for a body over the limit, and keeps serving', async () => {
    const big = { ...LIST, params: { ...LIST.params, pad: 'x'.repeat(2000) } };
    const res = await fetch(h.url, { method: 'POST', headers: MODERN_H, body: JSON.stringify(big) });
    expect(res.status).toBe(413);
    const chunked = await fetch(h.url, {
      method: 'POST',
      headers: MODERN_H,
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(400)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const after = await modernPost(h.url, 'tools/list');
    expect(after.status).toBe(200);
    await after.text();
  });

  it('-32700 + 400 for unparseable JSON, -32600 + 400 for a batch or a non-message', async () => {
    const parse = await fetch(h.url, { method: 'POST', headers: MODERN_H, body: '{"jsonrpc":' });
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const batch = await fetch(h.url, {
      method: 'POST',
      headers: MODERN_H,
      body: JSON.stringify([LIST, LIST]),
    });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    const junk = await fetch(h.url, {
      method: 'POST',
      headers: MODERN_H,
      body: JSON.stringify({ hello: 1 }),
    });
    expect(junk.status).toBe(400);
    expect(await junk.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('403 for a foreign Host or Origin (DNS rebinding), 2xx for localhost', async () => {
    const port = h.transport.address.port;
    const evilHost = await raw(
      port,
      `POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(evilHost).toMatch(/^HTTP\/1\.1 403/);
    const evilOrigin = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, origin: 'http://evil.example.com' },
      body: JSON.stringify(LIST),
    });
    expect(evilOrigin.status).toBe(403);
    const local = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, origin: `http://localhost:${port}` },
      body: JSON.stringify(LIST),
    });
    expect(local.status).toBe(200);
    await local.text();
  });

  it('403 for a Host that only starts like a loopback one (userinfo, a bad port), 200 for the plain one', async () => {
    const port = h.transport.address.port;
    const body = JSON.stringify(LIST);
    const post = (host: string) =>
      raw(
        port,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    for (const host of [
      '127.0.0.1:x@attacker.example',
      `localhost:${port}@attacker.example`,
      'localhost:99999',
      '127.1',
    ]) {
      expect(await post(host), host).toMatch(/^HTTP\/1\.1 403/);
    }
    const plain = await post(`127.0.0.1:${port}`);
    expect(plain).toMatch(/^HTTP\/1\.1 200/);
    expect(plain).toContain('"tools"');
  });

  it('404 for other paths, 405 for other methods and for GET/DELETE without a session', async () => {
    const other = await fetch(h.url.replace('/mcp', '/other'), {
      method: 'POST',
      headers: MODERN_H,
      body: JSON.stringify(LIST),
    });
    expect(other.status).toBe(404);
    const put = await fetch(h.url, { method: 'PUT', headers: MODERN_H, body: '{}' });
    expect(put.status).toBe(405);
    const get = await fetch(h.url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const del = await fetch(h.url, { method: 'DELETE' });
    expect(del.status).toBe(405);
  });

  it('cuts a slowloris client that never finishes its headers or its body', async () => {
    const port = h.transport.address.port;
    const head = await raw(port, 'POST /mcp HTTP/1.1\r\nHost: localhost\r\n');
    expect(head === '' || /^HTTP\/1\.1 408/.test(head)).toBe(true);
    const body = await raw(
      port,
      `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"js`,
    );
    expect(body === '' || /^HTTP\/1\.1 408/.test(body)).toBe(true);
    const after = await modernPost(h.url, 'tools/list');
    expect(after.status).toBe(200);
    await after.text();
  });

  it('431 for an oversized request head', async () => {
    const res = await fetch(h.url, {
      method: 'POST',
      headers: { ...MODERN_H, 'x-pad': 'y'.repeat(20_000) },
      body: JSON.stringify(LIST),
    });
    expect(res.status).toBe(431);
  });
});

describe('bearer auth', () => {
  it('checks the token on every request and maps it to a principal', async () => {
    const seen: unknown[] = [];
    const handler = toolHandler();
    const core = createServerCore({
      handler: {
        ...handler,
        handle: (req, ctx) => {
          seen.push(ctx.peer.attributes.principal);
          return handler.handle(req, ctx);
        },
      },
      serverInfo: { name: 't', version: '1' },
      logger: silentLogger,
    });
    const t = await serveHttp(core, { auth: { tokens: [{ token: TOKEN, name: 'ops' }] } });
    const url = `http://localhost:${t.address.port}/mcp`;
    const none = await modernPost(url, 'tools/list');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await modernPost(url, 'tools/list', {}, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const ok = await modernPost(url, 'tools/list', {}, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    await ok.text();
    expect(seen).toEqual(['ops']);
    await t.close();
    await core.close();
  });

  it('refuses to listen on a non-loopback address without auth', async () => {
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: silentLogger,
    });
    const t = createHttpTransport(core);
    await expect(t.listen(0, '0.0.0.0')).rejects.toThrow(/non-loopback/);
    const authed = createHttpTransport(core, { auth: { tokens: [{ token: TOKEN, name: 'ops' }] } });
    const address = await authed.listen(0, '0.0.0.0');
    expect(address.port).toBeGreaterThan(0);
    await authed.close();
    await core.close();
  });
});

describe('configurations', () => {
  it('serves TLS from PEM files', async () => {
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: silentLogger,
    });
    const t = await serveHttp(core, { tls: { certFile: LOCALHOST_TLS.cert, keyFile: LOCALHOST_TLS.key } });
    expect(t.url.startsWith('https://')).toBe(true);
    const body = JSON.stringify(LIST);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: t.address.port,
          path: '/mcp',
          method: 'POST',
          servername: 'localhost',
          ca: readFileSync(LOCALHOST_TLS.cert),
          headers: { ...MODERN_H, host: 'localhost', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).result.tools.length).toBeGreaterThan(0);
    await t.close();
    await core.close();
  });

  it('modern-only comes from the core: initialize 404 -32601 naming its versions, bare request -32602, GET/DELETE 405', async () => {
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: silentLogger,
      lifecycle: { versions: ['2026-07-28'] },
    });
    // No transport option: the core's lifecycle alone makes the transport modern-only.
    const t = await serveHttp(core, {});
    const url = `http://localhost:${t.address.port}/mcp`;
    await expectModernOnly(url, ['2026-07-28']);
    // What the core itself answers to the same initialize, for comparison.
    const direct = await core
      .openConnection(
        { origin: 'management', connectionId: 'x', transport: 'test', attributes: {} },
        {
          id: 'w',
          closed: false,
          write: () => true,
          close: () => {},
        },
      )
      .handle({
        kind: 'request',
        message: { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS },
      });
    expect(direct).toMatchObject({ error: { code: -32601, data: { supported: ['2026-07-28'] } } });
    await t.close();
    await core.close();
    expect(() => createHttpTransport(core, { legacy: true })).toThrow(/no legacy protocol version/);
  });

  it('legacy: false narrows a dual-era core to modern-only with the same answers', async () => {
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: silentLogger,
    });
    const t = await serveHttp(core, { legacy: false });
    await expectModernOnly(`http://localhost:${t.address.port}/mcp`, ['2026-07-28']);
    await t.close();
    await core.close();
  });

  it('graceful close ends listen streams with their final result and drains requests', async () => {
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 't', version: '1' },
      logger: silentLogger,
    });
    const t = await serveHttp(core, {});
    const url = `http://localhost:${t.address.port}/mcp`;
    const listen = await fetch(url, {
      method: 'POST',
      headers: { ...H, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'subscriptions/listen',
        params: { _meta: MODERN_META, notifications: { toolsListChanged: true } },
      }),
    });
    expect(listen.status).toBe(200);
    const slow = modernPost(url, 'tools/call', { name: 'progress' }, { meta: { progressToken: 1 } });
    await vi.waitFor(
      () => {
        expect(t.activeRequests, 'the listen stream and the call to be in flight').toBe(2);
      },
      { timeout: 10_000, interval: 5 },
    );
    const closed = t.close(5_000);
    const text = await listen.text();
    expect(text).toContain('"id":9');
    expect(text).toContain('"resultType":"complete"');
    expect(text).toContain('"io.modelcontextprotocol/subscriptionId":9');
    const slowText = await (await slow).text();
    expect(slowText).toContain('done');
    await closed;
    await core.close();
  });
});

const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'x', version: '1' },
};

async function expectModernOnly(url: string, versions: string[]): Promise<void> {
  const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'abc' } });
  expect(get.status).toBe(405);
  expect(get.headers.get('allow')).toBe('POST');
  const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': 'abc' } });
  expect(del.status).toBe(405);
  expect(del.headers.get('allow')).toBe('POST');
  const init = await fetch(url, {
    method: 'POST',
    headers: H,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }),
  });
  expect(init.status).toBe(404);
  const initBody = (await init.json()) as { error: { code: number; message: string; data: unknown } };
  expect(initBody.error.code).toBe(-32601);
  expect(initBody.error.data).toEqual({ supported: versions });
  expect(initBody.error.message).toContain(versions.join(', '));
  const bare = await fetch(url, {
    method: 'POST',
    headers: H,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  expect(bare.status).toBe(400);
  expect(await bare.json()).toMatchObject({ id: 2, error: { code: -32602 } });
  const modern = await modernPost(url, 'tools/list');
  expect(modern.status).toBe(200);
  await modern.text();
}
