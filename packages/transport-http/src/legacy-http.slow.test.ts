import { WATCHED_URI } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Harness, sseMessages, startHarness } from './test-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ keepAliveMs: 50 });
});
afterAll(async () => {
  await h.close();
});

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(version = '2025-11-25'): Promise<string> {
  const res = await fetch(h.url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  const session = res.headers.get('mcp-session-id');
  expect(session).toMatch(/^[0-9a-f]{32}$/);
  await res.json();
  return session as string;
}

function post(
  session: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(h.url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...(session === undefined ? {} : { 'mcp-session-id': session }), ...headers },
    body: JSON.stringify(body),
  });
}

describe('legacy sessions with the official SDK client', () => {
  it('connects, lists, calls, reads, subscribes and receives a push on the GET stream', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(client.getServerVersion()?.name).toBe('transport-http-test');

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'hello' }]);
    const read = await client.readResource({ uri: WATCHED_URI });
    expect(read.contents[0]).toMatchObject({ text: 'watched content' });

    const updated = new Promise<string>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
    });
    await client.subscribeResource({ uri: WATCHED_URI });
    // The GET stream opens asynchronously after initialize; push until the client sees one.
    let seen: string | undefined;
    void updated.then((uri) => {
      seen = uri;
    });
    await vi.waitFor(
      () => {
        h.core.notifyResourceUpdated(WATCHED_URI, { keep: true });
        expect(seen, 'the client to see an update on its GET stream').toBe(WATCHED_URI);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(await updated).toBe(WATCHED_URI);

    // Progress arrives on the POST's SSE stream.
    const progress: number[] = [];
    const withProgress = await client.callTool({ name: 'progress' }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(withProgress.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress).toEqual([0, 50, 100]);

    // A server-to-client request (sampling) rides the POST stream; the answer comes back as a POST.
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'from the client' },
      model: 'test',
    }));
    const asked = await client.callTool({ name: 'ask' });
    expect(asked.content).toEqual([{ type: 'text', text: 'sampled: from the client' }]);

    const sessions = h.transport.sessionCount;
    await transport.terminateSession();
    expect(h.transport.sessionCount).toBe(sessions - 1);
    await client.close();
  });
});

describe('legacy status codes', () => {
  it('requires a session id after initialize: 400 without, 404 unknown', async () => {
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const without = await post(undefined, list);
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({ id: 2, error: { code: -32600 } });
    const unknown = await post('0123456789abcdef0123456789abcdef', list);
    expect(unknown.status).toBe(404);
  });

  it('mints a fresh random session per initialize and answers in JSON', async () => {
    const a = await initialize();
    const b = await initialize('2025-06-18');
    expect(a).not.toBe(b);
    const res = await post(
      b,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  });

  it('checks MCP-Protocol-Version against the negotiated version', async () => {
    const session = await initialize();
    const bad = await post(
      session,
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(bad.status).toBe(400);
    const good = await post(
      session,
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(good.status).toBe(200);
    await good.text();
  });

  it('a session id with a modern version header is a version mismatch for that session', async () => {
    const session = await initialize();
    const res = await post(
      session,
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(4);
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('2026-07-28 does not match');
    expect(body.error.message).toContain('2025-11-25');
    expect(body.error.message).not.toContain('_meta');
  });

  it('answers notifications and client responses with 202 and no body', async () => {
    const session = await initialize();
    const note = await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
    const response = await post(session, { jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(response.status).toBe(202);
  });

  it('serves ping and logging/setLevel, and -32601 as a 200 JSON-RPC error', async () => {
    const session = await initialize();
    const ping = await post(session, { jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await ping.json()).toMatchObject({ id: 4, result: {} });
    const level = await post(session, {
      jsonrpc: '2.0',
      id: 5,
      method: 'logging/setLevel',
      params: { level: 'info' },
    });
    expect(await level.json()).toMatchObject({ id: 5, result: {} });
    const chatty = await post(session, {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'chatty' },
    });
    expect(chatty.headers.get('content-type')).toBe('text/event-stream');
    expect(sseMessages(await chatty.text()).filter((m) => m.method === 'notifications/message')).toHaveLength(
      3,
    );
    const unknown = await post(session, { jsonrpc: '2.0', id: 7, method: 'nope/nope' });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('opens one GET stream per session (409 for a second), 406 without the SSE Accept', async () => {
    const session = await initialize();
    const noAccept = await fetch(h.url, {
      headers: { 'mcp-session-id': session, accept: 'application/json' },
    });
    expect(noAccept.status).toBe(406);
    const controller = new AbortController();
    const stream = await fetch(h.url, {
      signal: controller.signal,
      headers: { 'mcp-session-id': session, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    const second = await fetch(h.url, {
      headers: { 'mcp-session-id': session, accept: 'text/event-stream' },
    });
    expect(second.status).toBe(409);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain(':');
    controller.abort();
  });

  it('DELETE ends a session; later requests get 404', async () => {
    const session = await initialize();
    const del = await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(204);
    const after = await post(session, { jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect(after.status).toBe(404);
    const again = await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(again.status).toBe(404);
  });

  it('classifies initialize with MCP-Protocol-Version and Mcp-Method headers as legacy', async () => {
    const res = await fetch(h.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'initialize' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).not.toBeNull();
    await res.text();
  });
});
