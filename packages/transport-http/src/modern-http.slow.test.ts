import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, MODERN_META, modernPost, sseMessages, startHarness } from './test-support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ keepAliveMs: 50 });
});
afterAll(async () => {
  await h.close();
});

describe('modern (2026-07-28) POSTs', () => {
  it('answers a tools/call as JSON with resultType and no session id', async () => {
    const res = await modernPost(
      h.url,
      'tools/call',
      { name: 'echo', arguments: { text: 'hi' } },
      { headers: { 'mcp-session-id': 'ignored' } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as { id: number; result: { content: unknown; resultType: string } };
    expect(body.id).toBe(1);
    expect(body.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(body.result.resultType).toBe('complete');
  });

  it('answers a result that cannot be encoded with -32603 for the same id, and keeps serving', async () => {
    const res = await modernPost(h.url, 'tools/call', { name: 'unencodable' }, { id: 'big' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'big',
      error: { code: -32603, message: 'Internal error' },
    });
    const next = await modernPost(h.url, 'tools/call', { name: 'echo', arguments: { text: 'still here' } });
    expect(((await next.json()) as { result: { content: unknown } }).result.content).toEqual([
      { type: 'text', text: 'still here' },
    ]);
  });

  it('streams progress as SSE (X-Accel-Buffering: no) and ends with the result', async () => {
    const res = await modernPost(
      h.url,
      'tools/call',
      { name: 'progress' },
      { meta: { progressToken: 'p1' } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const messages = sseMessages(await res.text());
    expect(messages.map((m) => m.method ?? 'result')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'result',
    ]);
    expect((messages[3] as { id: number }).id).toBe(1);
  });

  it('sends logs only when the request asked for a level', async () => {
    const quiet = await modernPost(h.url, 'tools/call', { name: 'chatty' });
    expect(quiet.headers.get('content-type')).toBe('application/json');
    await quiet.text();
    const loud = await modernPost(
      h.url,
      'tools/call',
      { name: 'chatty' },
      { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } },
    );
    const messages = sseMessages(await loud.text());
    expect(messages.filter((m) => m.method === 'notifications/message')).toHaveLength(3);
  });

  it('maps envelope errors to 400 in the order the suite checks', async () => {
    const missing = await fetch(h.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: {} }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ id: 7, error: { code: -32602 } });

    const mismatch = await modernPost(
      h.url,
      'tools/list',
      {},
      { meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error: { code: -32020 } });

    const unsupported = await modernPost(
      h.url,
      'tools/list',
      {},
      {
        meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
        headers: { 'mcp-protocol-version': 'v999.0.0' },
      },
    );
    expect(unsupported.status).toBe(400);
    const body = (await unsupported.json()) as {
      error: { code: number; data: { requested: string; supported: string[] } };
    };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.requested).toBe('v999.0.0');
    expect(body.error.data.supported).toContain('2026-07-28');

    const wrongName = await modernPost(
      h.url,
      'tools/call',
      { name: 'echo' },
      { headers: { 'mcp-name': 'other' } },
    );
    expect(wrongName.status).toBe(400);
    expect(await wrongName.json()).toMatchObject({ error: { code: -32020 } });

    const noMethod = await modernPost(h.url, 'tools/list', {}, { headers: { 'mcp-method': 'tools/call' } });
    expect(noMethod.status).toBe(400);
    expect(await noMethod.json()).toMatchObject({ error: { code: -32020 } });
  });

  it('answers unknown and removed methods with 404 + -32601', async () => {
    for (const method of [
      'unknown/method',
      'ping',
      'initialize',
      'logging/setLevel',
      'resources/subscribe',
    ]) {
      const res = await modernPost(
        h.url,
        method,
        method === 'resources/subscribe' ? { uri: 'test://watched' } : {},
      );
      expect(res.status, method).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: -32601 } });
    }
  });

  it('answers a domain error (unknown tool) as 200 JSON-RPC error and a notification with 202', async () => {
    const unknown = await modernPost(h.url, 'tools/call', { name: 'nope' });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ error: { code: -32602 } });
    const note = await fetch(h.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
  });

  it('serves server/discover with supportedVersions and serverInfo', async () => {
    const res = await modernPost(h.url, 'server/discover');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: Record<string, unknown> };
    expect(body.result.supportedVersions).toContain('2026-07-28');
    expect(body.result._meta).toMatchObject({
      'io.modelcontextprotocol/serverInfo': { name: 'transport-http-test' },
    });
  });

  it('runs subscriptions/listen as a long-lived SSE stream: ack, keep-alives, tagged pushes', async () => {
    const controller = new AbortController();
    const res = await fetch(h.url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 42,
        method: 'subscriptions/listen',
        params: {
          _meta: MODERN_META,
          notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched'] },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (predicate: (t: string) => boolean) => {
      while (!predicate(text)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(chunk.value);
      }
    };
    await until((t) => t.includes('notifications/subscriptions/acknowledged'));
    await until((t) => t.includes('\n:\n') || t.startsWith(':\n'));
    h.core.notifyListChanged('tools');
    h.core.notifyResourceUpdated('test://watched');
    await until(
      (t) => t.includes('notifications/resources/updated') && t.includes('notifications/tools/list_changed'),
    );
    const messages = sseMessages(text);
    expect(messages[0]?.method).toBe('notifications/subscriptions/acknowledged');
    for (const m of messages) {
      expect(
        (m.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId'],
      ).toBe(42);
    }
    controller.abort();
  });
});
