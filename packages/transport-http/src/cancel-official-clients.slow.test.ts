/**
 * Issue 12 item 1: each official client aborts an in-flight call over HTTP, in both eras and on
 * both Node adapters (`serveHttp` and the fetch handler), then keeps using the same connection
 * with no transport error. A cancelled legacy POST used to end as 204 with no content type,
 * which both clients reject ("Unexpected content type: null", CLIENT_HTTP_UNEXPECTED_CONTENT).
 */

import { setImmediate } from 'node:timers/promises';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFetchHarness } from './test-support/fetch-harness.js';
import { startHarness } from './test-support/harness.js';

interface Server {
  url: string;
  sessionCount: () => number;
  close(): Promise<void>;
}

let aborted = 0;
let requests = 0;
const hooks = {
  onAbort: () => {
    aborted++;
  },
  onRequest: () => {
    requests++;
  },
};

const servers: Record<string, () => Promise<Server>> = {
  serveHttp: async () => {
    const h = await startHarness({}, hooks);
    return { url: h.url, sessionCount: () => h.transport.sessionCount, close: () => h.close() };
  },
  createFetchHandler: async () => {
    const h = await startFetchHarness({}, hooks);
    return { url: h.url, sessionCount: () => h.handler.sessionCount, close: () => h.close() };
  },
};

async function until(check: () => boolean, what: string): Promise<void> {
  await vi.waitFor(
    () => {
      expect(check(), what).toBe(true);
    },
    { timeout: 10_000, interval: 10 },
  );
}

/** Starts `wait`, aborts it once the server runs it, then checks the same client still works. */
async function abortThenReuse(
  call: (signal: AbortSignal) => Promise<unknown>,
  echo: () => Promise<unknown>,
  errors: unknown[],
): Promise<void> {
  const before = aborted;
  const started = requests;
  const controller = new AbortController();
  const pending = call(controller.signal);
  const outcome = pending.then(
    () => 'resolved',
    () => 'rejected',
  );
  // A cancel that overtakes its call (two POSTs on two connections) is ignored by the server.
  await until(() => requests > started, 'the server to run the call');
  controller.abort('user cancelled');
  expect(await outcome).toBe('rejected');
  await until(() => aborted > before, 'the server to abort the call');
  expect(await echo()).toMatchObject({ content: [{ type: 'text', text: 'still here' }] });
  // The cancelled POST's answer (an empty event stream) was read before the echo's: one turn of
  // the loop lets an error it raised surface.
  await setImmediate();
  expect(errors).toEqual([]);
}

for (const [adapter, start] of Object.entries(servers)) {
  describe(`cancelling over HTTP (${adapter})`, () => {
    let server: Server;
    beforeAll(async () => {
      server = await start();
    });
    afterAll(() => server.close());

    it('SDK v1 (legacy session): abort, then the same session keeps working', async () => {
      const errors: unknown[] = [];
      const client = new ClientV1({ name: 'v1', version: '1.0.0' });
      client.onerror = (error) => errors.push(error);
      await client.connect(new TransportV1(new URL(server.url)));
      await abortThenReuse(
        (signal) => client.callTool({ name: 'wait', arguments: {} }, undefined, { signal }),
        () => client.callTool({ name: 'echo', arguments: { text: 'still here' } }),
        errors,
      );
      await client.close();
    });

    it('SDK v2 (legacy session): abort, then the same session keeps working', async () => {
      const errors: unknown[] = [];
      const client = new ClientV2({ name: 'v2', version: '1.0.0' });
      client.onerror = (error) => errors.push(error);
      await client.connect(new TransportV2(new URL(server.url)));
      await abortThenReuse(
        (signal) => client.callTool({ name: 'wait', arguments: {} }, { signal }),
        () => client.callTool({ name: 'echo', arguments: { text: 'still here' } }),
        errors,
      );
      await client.close();
    });

    it('SDK v2 (stateless 2026-07-28): abort, then the same client keeps working', async () => {
      const errors: unknown[] = [];
      const client = new ClientV2(
        { name: 'v2', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      client.onerror = (error) => errors.push(error);
      await client.connect(new TransportV2(new URL(server.url)));
      const sessions = server.sessionCount();
      await abortThenReuse(
        (signal) => client.callTool({ name: 'wait', arguments: {} }, { signal }),
        () => client.callTool({ name: 'echo', arguments: { text: 'still here' } }),
        errors,
      );
      expect(server.sessionCount()).toBe(sessions);
      await client.close();
    });

    it('a legacy session DELETEd with a call in flight ends that POST as an event stream, not 204', async () => {
      const init = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      });
      const session = init.headers.get('mcp-session-id') as string;
      await init.text();
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      };
      const before = aborted;
      const started = requests;
      const call = fetch(server.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'wait', arguments: {} },
        }),
      });
      await until(() => requests > started, 'the server to run the call');
      const deleted = await fetch(server.url, { method: 'DELETE', headers });
      expect(deleted.status).toBe(204);
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/event-stream');
      expect(await answer.text()).not.toContain('data:');
      await until(() => aborted > before, 'the server to abort the call');
    });
  });
}
