/**
 * `createFetchHandler` called with Web `Request`s directly (no server, as a Worker or Deno sees
 * it): paths, guards, body limits, JSON and SSE answers, and cancellation through `request.signal`.
 */
import { createServerCore, type RequestContext, silentLogger } from '@agentd/server';
import { toolHandler } from '@agentd/test-support';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createFetchHandler } from './index.js';
import { MODERN_META, sseMessages } from './test-support/harness.js';

const aborted: RequestContext[] = [];
const started: RequestContext[] = [];
const core = createServerCore({
  handler: toolHandler({ onAbort: (c) => aborted.push(c), onRequest: (c) => started.push(c) }),
  serverInfo: { name: 'fetch-test', version: '1.0.0' },
  logger: silentLogger,
});
const handler = createFetchHandler(core, { maxBodyBytes: 1024 });
afterAll(async () => {
  await handler.close(500);
  await core.close();
});

const BASE = 'http://localhost:8787';

function modern(
  method: string,
  params: Record<string, unknown> = {},
  init: RequestInit = {},
  meta: Record<string, unknown> = {},
): Request {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return new Request(`${BASE}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { ...params, _meta: { ...MODERN_META, ...meta } },
    }),
    ...init,
  });
}

describe('createFetchHandler', () => {
  it('answers a modern request as JSON, and other paths with 404', async () => {
    const res = await handler(modern('tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });
    const other = await handler(new Request(`${BASE}/health`));
    expect(other.status).toBe(404);
  });

  it('streams progress as SSE before the result', async () => {
    const res = await handler(
      modern('tools/call', { name: 'progress', arguments: {} }, {}, { progressToken: 't' }),
    );
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const messages = sseMessages(await res.text());
    expect(messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(3);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: 'done' }] } });
  });

  it('refuses a foreign Host (403) and too-large bodies, declared or streamed (413)', async () => {
    const foreign = modern('tools/list');
    const evil = new Request('http://evil.example/mcp', {
      method: 'POST',
      headers: foreign.headers,
      body: '{}',
    });
    expect((await handler(evil)).status).toBe(403);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(4096) },
    });
    const declared = modern('tools/list', {}, { body: big });
    expect((await handler(declared)).status).toBe(413);
    const chunks = [new TextEncoder().encode(big.slice(0, 900)), new TextEncoder().encode(big.slice(900))];
    const streamed = modern('tools/list', {}, {
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      }),
      duplex: 'half',
    } as RequestInit);
    const res = await handler(streamed);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('aborting request.signal cancels the request in the core', async () => {
    const controller = new AbortController();
    const before = aborted.length;
    const running = started.length;
    const pending = handler(
      modern('tools/call', { name: 'wait', arguments: {} }, { signal: controller.signal }),
    );
    const waitFor = { timeout: 10_000, interval: 10 };
    await vi.waitFor(() => {
      expect(started.length, 'the core to run the call').toBe(running + 1);
    }, waitFor);
    controller.abort();
    await vi.waitFor(() => {
      expect(aborted.length, 'the core to abort the call').toBe(before + 1);
    }, waitFor);
    await vi.waitFor(() => {
      expect(handler.activeRequests, 'the request to finish').toBe(0);
    }, waitFor);
    await pending.catch(() => undefined);
  });

  it('a client gone before its request is served: the request ends, cancelled if it started', async () => {
    const controller = new AbortController();
    const before = { aborted: aborted.length, started: started.length };
    controller.abort();
    // `wait` never answers by itself: only cancellation ends it.
    await handler(modern('tools/call', { name: 'wait', arguments: {} }, { signal: controller.signal }));
    await vi.waitFor(() => expect(handler.activeRequests).toBe(0), { timeout: 10_000 });
    expect(aborted.length - before.aborted).toBe(started.length - before.started);
  });

  it('an answer ready at once never reads request.signal', async () => {
    // Reading it costs some hosts an AbortController per request (@hono/node-server).
    let reads = 0;
    const request = modern('tools/call', { name: 'echo', arguments: { text: 'quick' } });
    const signal = request.signal;
    Object.defineProperty(request, 'signal', {
      get: () => {
        reads += 1;
        return signal;
      },
    });
    const res = await handler(request);
    expect(await res.json()).toMatchObject({ result: { content: [{ text: 'quick' }] } });
    // sleep-is-the-point: past the 20 ms after which a request still running reads the signal.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads).toBe(0);
  });

  it('a request still running after a keep-alive period is answered as SSE, so a gone client is noticed on write', async () => {
    // workerd and Deno may never abort request.signal while the answer is pending; the SSE
    // answer's keep-alives are writes, and a write to a gone client cancels the body stream.
    const probing = createFetchHandler(core, { keepAliveMs: 100 });
    const before = aborted.length;
    const res = await probing(modern('tools/call', { name: 'wait', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(aborted.length).toBe(before);
    await res.body?.cancel();
    await vi.waitFor(() => expect(aborted.length).toBe(before + 1), { timeout: 10_000 });
    await vi.waitFor(() => expect(probing.activeRequests).toBe(0), { timeout: 10_000 });
    await probing.close(500);
  });
});

describe('shutdown', () => {
  it('answers a request after close with the sockets\' -32000 "Server is shutting down", status 503', async () => {
    const own = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 'closing', version: '1.0.0' },
      logger: silentLogger,
    });
    const closing = createFetchHandler(own);
    await closing.close(100);
    const res = await closing(modern('tools/list'));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: -32000, message: 'Server is shutting down' } });
    await own.close();
  });
});
