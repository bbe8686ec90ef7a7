/**
 * Other runtimes for real: the fixture — a whole server, Dispatcher with its registered tools +
 * ServerCore + fetch handler — under Bun and Deno, and bundled for workerd (which forbids code
 * generation, so the Dispatcher validates arguments by interpreting their schemas), each driven
 * by the official SDK clients in both eras. Binaries come from the `bun`, `deno` and
 * `workerd` npm packages; Miniflare (workerd as `wrangler dev` runs it) comes through npx on a
 * pinned Node. Cancellation in both eras must reach the handler everywhere: a legacy
 * `notifications/cancelled` (workerd forbids one request to touch another's objects), and a
 * 2026-07-28 client closing its stream (workerd and Deno notice only when writing). Runs on the
 * Node 20 pass only (one runtime run is enough).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FixtureProcess, PRIMARY_NODE_RUN } from './test-support/fixture-process.js';
import { binaryOf, type Runtime, startRuntime } from './test-support/runtimes.js';

const EXPECTED = [{ type: 'text', text: 'This is a simple text response for testing.' }];

type V2 = InstanceType<typeof ClientV2>;

async function cancelCounts(client: V2): Promise<{ waiting: number; cancelled: number }> {
  const result = await client.callTool({ name: 'test_cancel_counts', arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}');
}

/**
 * Starts a call that waits until it is cancelled, cancels it through the client's signal once
 * the handler runs, and waits until the server counts it cancelled (the handler's signal fired).
 */
async function cancelOneCall(client: V2): Promise<void> {
  const before = await cancelCounts(client);
  const abort = new AbortController();
  const call = client.callTool(
    { name: 'test_wait_for_cancel', arguments: { seconds: 60 } },
    { signal: abort.signal, timeout: 120_000 },
  );
  call.catch(() => undefined);
  await vi.waitFor(async () => expect((await cancelCounts(client)).waiting).toBe(before.waiting + 1), {
    timeout: 20_000,
    interval: 100,
  });
  abort.abort('the user gave up');
  await expect(call).rejects.toThrow('the user gave up');
  await vi.waitFor(
    async () =>
      expect(await cancelCounts(client)).toEqual({
        waiting: before.waiting,
        cancelled: before.cancelled + 1,
      }),
    { timeout: 20_000, interval: 200 },
  );
}

for (const runtime of ['bun', 'deno', 'workerd', 'miniflare'] as const satisfies readonly Runtime[]) {
  const binary = binaryOf(runtime);
  const runnable = PRIMARY_NODE_RUN && 'path' in binary;
  if (!runnable) {
    const why =
      'missing' in binary ? binary.missing : `runs on the Node 20 pass only (this is ${process.version})`;
    if (process.env.CI === 'true' && 'missing' in binary) throw new Error(`${runtime}: ${why}`);
    console.warn(`SKIPPED: the fixture under ${runtime}: ${why}`);
  }
  describe.runIf(runnable)(`the server under ${runtime}`, () => {
    let fixture: FixtureProcess;
    beforeAll(async () => {
      fixture = await startRuntime(runtime, (binary as { path: string }).path);
    }, 240_000);
    afterAll(() => fixture?.stop());

    it('SDK v1, legacy session: lists and calls tools', async () => {
      const client = new ClientV1({ name: 'v1', version: '1.0.0' });
      const errors: unknown[] = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(new TransportV1(new URL(fixture.url)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('test_simple_text');
      expect((await client.callTool({ name: 'test_simple_text', arguments: {} })).content).toEqual(EXPECTED);
      // Arguments checked against the tool's schema: a required one, a typed one.
      const good = await client.callTool({
        name: 'test_custom_headers',
        arguments: { region: 'eu', priority: 2 },
      });
      expect(good.isError).not.toBe(true);
      const bad = await client.callTool({ name: 'test_custom_headers', arguments: { priority: 'high' } });
      expect(bad.isError).toBe(true);
      expect(bad.content).toEqual([
        {
          type: 'text',
          text: 'Invalid arguments: argument `region` is required (required); argument `priority` must be integer (type)',
        },
      ]);
      // Closing the client aborts its GET stream; only errors before that count.
      expect(errors).toEqual([]);
      await client.close();
    });

    it('SDK v2, stateless 2026-07-28: calls tools, bad arguments give the isError result', async () => {
      const client = new ClientV2(
        { name: 'v2', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new TransportV2(new URL(fixture.url)));
      expect((await client.callTool({ name: 'test_simple_text', arguments: {} })).content).toEqual(EXPECTED);
      const schema2020 = await client.callTool({
        name: 'json_schema_2020_12_tool',
        arguments: { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' },
      });
      expect(schema2020.isError).not.toBe(true);
      const bad = await client.callTool({
        name: 'json_schema_2020_12_tool',
        arguments: { name: 'Ada', contactMethod: 'fax', email: 'ada@example.com' },
      });
      expect(bad.isError).toBe(true);
      expect(bad.content).toEqual([
        {
          type: 'text',
          text: 'Invalid arguments: argument `contactMethod` must be one of "phone", "email" (enum)',
        },
      ]);
      await client.close();
    });

    it('SDK v2, legacy session: notifications/cancelled aborts the handler, no transport error', async () => {
      const client = new ClientV2({ name: 'v2', version: '1.0.0' });
      const errors: unknown[] = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(new TransportV2(new URL(fixture.url)));
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      await cancelOneCall(client);
      expect(errors).toEqual([]);
      await client.close();
    }, 90_000);

    it('SDK v2, legacy session: ending the session (DELETE) while a call runs aborts its handler', async () => {
      const client = new ClientV2({ name: 'v2', version: '1.0.0' });
      const transport = new TransportV2(new URL(fixture.url));
      await client.connect(transport);
      const before = await cancelCounts(client);
      const call = client.callTool(
        { name: 'test_wait_for_cancel', arguments: { seconds: 60 } },
        { timeout: 120_000 },
      );
      call.catch(() => undefined);
      await vi.waitFor(async () => expect((await cancelCounts(client)).waiting).toBe(before.waiting + 1), {
        timeout: 20_000,
        interval: 100,
      });
      await transport.terminateSession();
      expect(transport.sessionId).toBeUndefined();
      await client.close();
      const other = new ClientV2({ name: 'v2', version: '1.0.0' });
      await other.connect(new TransportV2(new URL(fixture.url)));
      await vi.waitFor(
        async () =>
          expect(await cancelCounts(other)).toEqual({
            waiting: before.waiting,
            cancelled: before.cancelled + 1,
          }),
        { timeout: 20_000, interval: 200 },
      );
      await other.close();
    }, 90_000);

    // Not under Miniflare: its entry worker, which relays the answer, does not pass a client's
    // close on to the worker (the handler runs to its end); plain workerd does.
    it.skipIf(runtime === 'miniflare')(
      'SDK v2, stateless 2026-07-28: aborting a call closes its stream and aborts the handler',
      async () => {
        const client = new ClientV2(
          { name: 'v2', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        await client.connect(new TransportV2(new URL(fixture.url)));
        await cancelOneCall(client);
        await client.close();
      },
      90_000,
    );
  });
}
