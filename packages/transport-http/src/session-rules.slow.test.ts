import { paramHeadersOf } from '@agentd/lifecycle';
import { createServerCore, silentLogger } from '@agentd/server';
import { toolHandler } from '@agentd/test-support';
import { expect, it, vi } from 'vitest';
import { serveHttp } from './node.js';
import { modernPost } from './test-support/harness.js';

const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

async function start(options: Parameters<typeof serveHttp>[1]) {
  const core = createServerCore({
    handler: toolHandler(),
    serverInfo: { name: 't', version: '1' },
    logger: silentLogger,
  });
  const t = await serveHttp(core, options);
  const url = `http://localhost:${t.address.port}/mcp`;
  const close = async () => {
    await t.close();
    await core.close();
  };
  return { core, t, url, close };
}

it("binds a session to the principal that created it: another token's requests get 404", async () => {
  const tokens = [
    { token: 'alice-token-0123456789', name: 'alice' },
    { token: 'bobby-token-0123456789', name: 'bob' },
  ];
  const s = await start({ auth: { tokens } });
  const init = await fetch(s.url, {
    method: 'POST',
    headers: { ...H, authorization: 'Bearer alice-token-0123456789' },
    body: JSON.stringify(INIT),
  });
  const session = init.headers.get('mcp-session-id') as string;
  await init.text();
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const asBob = await fetch(s.url, {
    method: 'POST',
    headers: { ...H, authorization: 'Bearer bobby-token-0123456789', 'mcp-session-id': session },
    body: list,
  });
  expect(asBob.status).toBe(404);
  const asAlice = await fetch(s.url, {
    method: 'POST',
    headers: { ...H, authorization: 'Bearer alice-token-0123456789', 'mcp-session-id': session },
    body: list,
  });
  expect(asAlice.status).toBe(200);
  await asAlice.text();
  await s.close();
});

it('at maxSessions evicts the least recently used idle session; 503 only when none is idle', async () => {
  const s = await start({ maxSessions: 2 });
  const init = async () => {
    const res = await fetch(s.url, { method: 'POST', headers: H, body: JSON.stringify(INIT) });
    await res.text();
    return { status: res.status, id: res.headers.get('mcp-session-id') as string, res };
  };
  const list = (id: string) =>
    fetch(s.url, {
      method: 'POST',
      headers: { ...H, 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
  const a = await init();
  const b = await init();
  // a is used after b, so b is the least recently used: a later clock (Date only) says so even
  // when both land in the same millisecond.
  vi.setSystemTime(Date.now() + 1_000);
  try {
    await (await list(a.id)).text();
  } finally {
    vi.useRealTimers();
  }
  const c = await init();
  expect(c.status).toBe(200);
  expect(s.t.sessionCount).toBe(2);
  const evicted = await list(b.id);
  expect(evicted.status).toBe(404);
  await evicted.text();
  const kept = await list(a.id);
  expect(kept.status).toBe(200);
  await kept.text();

  // Both remaining sessions hold a GET stream: none is idle, so a new initialize is refused.
  const streams = new AbortController();
  for (const id of [a.id, c.id]) {
    const get = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
      signal: streams.signal,
    });
    expect(get.status).toBe(200);
  }
  const refused = await init();
  expect(refused.status).toBe(503);
  expect(refused.res.headers.get('retry-after')).toBe('5');
  streams.abort();
  await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': a.id } });
  const again = await init();
  expect(again.status).toBe(200);
  expect(s.t.sessionCount).toBe(2);
  await s.close();
});

it('decodes a base64 Mcp-Name and cancels a request whose client closed its stream', async () => {
  const s = await start({});
  const name = 'echo';
  const encoded = `=?base64?${Buffer.from(name).toString('base64')}?=`;
  const res = await modernPost(
    s.url,
    'tools/call',
    { name, arguments: { text: 'b64' } },
    { headers: { 'mcp-name': encoded } },
  );
  expect(await res.json()).toMatchObject({ result: { content: [{ text: 'b64' }] } });

  const controller = new AbortController();
  const waiting = modernPost(s.url, 'tools/call', { name: 'wait' }, { headers: {} });
  void waiting.catch(() => undefined);
  const pending = fetch(s.url, {
    method: 'POST',
    signal: controller.signal,
    headers: { ...H, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'wait' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'wait',
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  }).catch(() => undefined);
  const waitFor = { timeout: 10_000, interval: 10 };
  await vi.waitFor(() => {
    expect(s.t.activeRequests, 'both calls to be in flight').toBe(2);
  }, waitFor);
  controller.abort();
  await pending;
  // The aborted request is cancelled (its tool sees the abort); the other keeps running.
  await vi.waitFor(() => {
    expect(s.t.activeRequests, 'the aborted call to end').toBe(1);
  }, waitFor);
  await s.t.close(50);
  await s.core.close();
});

it('checks Mcp-Param-* headers for tools the embedder describes', async () => {
  const headers = paramHeadersOf({
    type: 'object',
    properties: { text: { type: 'string', 'x-mcp-header': 'Text' } },
  });
  const s = await start({ toolParamHeaders: (name) => (name === 'echo' ? headers : undefined) });
  const missing = await modernPost(s.url, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
  expect(missing.status).toBe(400);
  expect(await missing.json()).toMatchObject({ error: { code: -32020 } });
  const ok = await modernPost(
    s.url,
    'tools/call',
    { name: 'echo', arguments: { text: 'hi' } },
    { headers: { 'mcp-param-text': 'hi' } },
  );
  expect(await ok.json()).toMatchObject({ result: { content: [{ text: 'hi' }] } });
  await s.close();
});
