/** Several HTTP listeners on one core: connection ids come from the core, so they never collide. */
import { createServerCore, silentLogger } from '@agentd/server';
import { toolHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp } from './node.js';
import { MODERN_META, modernPost } from './test-support/harness.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Opens a subscriptions/listen stream and resolves once it is acknowledged (the connection is open). */
async function openListen(url: string, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: { _meta: MODERN_META, notifications: { toolsListChanged: true } },
    }),
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('notifications/subscriptions/acknowledged')) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`listen stream ended: ${text}`);
    text += decoder.decode(chunk.value);
  }
}

describe('two HTTP endpoints sharing one core', () => {
  it('serve requests on B while listen streams stay open on A', async () => {
    const core = createServerCore({
      handler: toolHandler(),
      serverInfo: { name: 'shared-core-test', version: '1.0.0' },
      logger: silentLogger,
    });
    const a = await serveHttp(core);
    const b = await serveHttp(core);
    closers.push(() => core.close());
    closers.push(() => a.close(1_000));
    closers.push(() => b.close(1_000));
    const urlA = `http://localhost:${a.address.port}/mcp`;
    const urlB = `http://localhost:${b.address.port}/mcp`;
    const listening = new AbortController();
    closers.push(async () => listening.abort());
    // Several streams on A hold the ids an endpoint counting from 1 would hand out first.
    await Promise.all(Array.from({ length: 3 }, () => openListen(urlA, listening.signal)));
    for (let i = 0; i < 5; i++) {
      const res = await modernPost(urlB, 'tools/list', {}, { id: i });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result?: { tools?: unknown[] }; error?: unknown };
      expect(body.error).toBeUndefined();
      expect(Array.isArray(body.result?.tools)).toBe(true);
    }
    expect(core.connectionCount).toBe(3);
  });
});
