/**
 * Other runtimes for real: the fixture — a whole server, Dispatcher with its registered tools +
 * ServerCore + fetch handler — under Bun and Deno, and bundled for workerd (which forbids code
 * generation, so the Dispatcher validates arguments by interpreting their schemas), each driven
 * by the official SDK clients in both eras. Binaries come from the `bun`, `deno` and
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
  });
}
