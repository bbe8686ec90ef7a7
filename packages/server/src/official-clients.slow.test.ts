/**
 * The official SDK clients (v1 1.32, legacy era; v2 2.4, 2026-07-28) over real stdio (a child
 * process) and a real unix socket: an aborted call and a closed listen leave the connection
 * healthy, with no transport error and no response to a cancelled id.
 */
import { fileURLToPath } from 'node:url';
import { memoryLogger, streamTransport } from '@agentd/test-support';
import {
  Client as ClientV2,
  ReadBuffer as ReadBufferV2,
  serializeMessage as serializeV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ReadBuffer as ReadBufferV1,
  serializeMessage as serializeV1,
} from '@modelcontextprotocol/sdk/shared/stdio.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Handler } from './handler.js';
import { createServerCore } from './server-core.js';
import { type SocketServer, startSocketServer } from './test-support/socket-server.js';

const CHILD = fileURLToPath(new URL('./test-support/official-child.mjs', import.meta.url));
const PIN = { mode: { pin: '2026-07-28' } } as const;

let server: SocketServer | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await server?.close();
  server = undefined;
});

/** The same tools as official-child.mjs, in process (for the unix socket runs). */
function inProcessHandler(aborted: unknown[]): Handler {
  return {
    capabilities: () => ({ tools: { listChanged: true } }),
    handle: async (request, ctx) => {
      if (request.method === 'tools/list') {
        return {
          tools: [
            { name: 'slow', description: 'Waits until cancelled.', inputSchema: { type: 'object' } },
            { name: 'echo', description: 'Echoes its arguments.', inputSchema: { type: 'object' } },
          ],
        };
      }
      if (request.params?.name === 'slow') {
        ctx.notify({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: ctx.progressToken ?? 0, progress: 0 },
        });
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        aborted.push(ctx.requestId);
        return { content: [] };
      }
      return { content: [{ type: 'text', text: JSON.stringify(request.params?.arguments ?? {}) }] };
    },
  };
}

interface Harness {
  /** Transport or protocol errors the client reported. */
  errors: Error[];
  /** How many server-side aborts were seen so far. */
  aborts(): number;
}

/** Aborts a call once the server reports it started; then the same connection keeps working. */
async function abortThenContinue(client: ClientV1 | ClientV2, harness: Harness): Promise<void> {
  const controller = new AbortController();
  const options = { signal: controller.signal, onprogress: () => controller.abort('user gave up') };
  const call =
    client instanceof ClientV1
      ? client.callTool({ name: 'slow', arguments: {} }, undefined, options)
      : client.callTool({ name: 'slow', arguments: {} }, options);
  await expect(call).rejects.toBeDefined();
  // The server's abort is its own state (a log line, a handler's list): no event reaches the test.
  await vi.waitFor(() => expect(harness.aborts(), 'the server aborted the call').toBe(1), {
    timeout: 5_000,
    interval: 5,
  });
  for (let i = 0; i < 3; i += 1) {
    const echo = await client.callTool({ name: 'echo', arguments: { i } });
    expect(echo.content).toEqual([{ type: 'text', text: JSON.stringify({ i }) }]);
  }
  expect(harness.errors).toEqual([]);
}

/** Opens a listen stream and closes it (a notifications/cancelled): no answer may follow. */
async function listenThenClose(client: ClientV2, harness: Harness): Promise<void> {
  const subscription = await client.listen({ toolsListChanged: true });
  expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
  await subscription.close();
  expect(await subscription.closed).toBe('local');
  // A barrier: a response to the cancelled listen would have arrived before this one.
  await client.callTool({ name: 'echo', arguments: {} });
  await client.callTool({ name: 'echo', arguments: {} });
  expect(harness.errors).toEqual([]);
}

function stdioHarness(transport: StdioV1 | StdioV2, client: ClientV1 | ClientV2): Harness {
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  return { errors, aborts: () => stderr.split('\n').filter((line) => line.startsWith('aborted ')).length };
}

describe('official SDK clients over stdio (a child process)', () => {
  it('v1 (legacy era): an aborted call is cancelled server-side and the connection goes on', async () => {
    const transport = new StdioV1({ command: process.execPath, args: [CHILD], stderr: 'pipe' });
    const client = new ClientV1({ name: 'v1', version: '1' });
    const harness = stdioHarness(transport, client);
    await client.connect(transport);
    closers.push(() => client.close());
    await abortThenContinue(client, harness);
  });

  it('v2 (2026-07-28): an aborted call and a closed listen, then more calls, no errors', async () => {
    const transport = new StdioV2({ command: process.execPath, args: [CHILD], stderr: 'pipe' });
    const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: PIN });
    const harness = stdioHarness(transport, client);
    await client.connect(transport);
    closers.push(() => client.close());
    await abortThenContinue(client, harness);
    await listenThenClose(client, harness);
  });
});

describe('official SDK clients over a unix socket', () => {
  async function start(): Promise<{ aborted: unknown[]; srv: SocketServer }> {
    const aborted: unknown[] = [];
    const core = createServerCore({
      handler: inProcessHandler(aborted),
      serverInfo: { name: 'unix', version: '1' },
      logger: memoryLogger(),
    });
    server = await startSocketServer(core);
    return { aborted, srv: server };
  }

  it('v1 (legacy era): abort, then the same connection keeps working', async () => {
    const { aborted, srv } = await start();
    const transport = streamTransport(await srv.raw(), {
      ReadBuffer: ReadBufferV1,
      serializeMessage: serializeV1,
    });
    const client = new ClientV1({ name: 'v1', version: '1' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    closers.push(() => client.close());
    await abortThenContinue(client, { errors, aborts: () => aborted.length });
  });

  it('v2 (2026-07-28): abort and a closed listen, then the same connection keeps working', async () => {
    const { aborted, srv } = await start();
    const transport = streamTransport(await srv.raw(), {
      ReadBuffer: ReadBufferV2,
      serializeMessage: serializeV2,
    });
    const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: PIN });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    closers.push(() => client.close());
    const harness = { errors, aborts: () => aborted.length };
    await abortThenContinue(client, harness);
    await listenThenClose(client, harness);
  });
});
