/**
 * Other runtimes for real: the fixture — a whole server, Dispatcher + ServerCore + fetch handler —
 * under Bun and Deno, and a ServerCore + fetch handler (+ Dispatcher module) bundled for workerd,
 * each driven by the official SDK clients in both eras. Binaries come from the `bun`, `deno` and
 * `workerd` npm packages. Runs on the Node 20 pass only (one runtime run is enough).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureProcess, PRIMARY_NODE_RUN } from './test-support/fixture-process.js';
import { binaryOf, type Runtime, startRuntime } from './test-support/runtimes.js';

const EXPECTED = [{ type: 'text', text: 'This is a simple text response for testing.' }];

for (const runtime of ['bun', 'deno', 'workerd'] as const satisfies readonly Runtime[]) {
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
    }, 60_000);
    afterAll(() => fixture?.stop());

    it('SDK v1, legacy session: lists and calls tools', async () => {
      const client = new ClientV1({ name: 'v1', version: '1.0.0' });
      const errors: unknown[] = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(new TransportV1(new URL(fixture.url)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('test_simple_text');
      expect((await client.callTool({ name: 'test_simple_text', arguments: {} })).content).toEqual(EXPECTED);
      // Closing the client aborts its GET stream; only errors before that count.
      expect(errors).toEqual([]);
      await client.close();
    });

    it('SDK v2, stateless 2026-07-28: calls a tool', async () => {
      const client = new ClientV2(
        { name: 'v2', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new TransportV2(new URL(fixture.url)));
      expect((await client.callTool({ name: 'test_simple_text', arguments: {} })).content).toEqual(EXPECTED);
      await client.close();
    });
  });
}
