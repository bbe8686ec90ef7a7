/** Operations with a zod argument schema in Code Mode: search shows the JSON Schema form, execute validates with zod. */

import { CodeModeRunner } from '@agentd/codemode';
import { silentLogger } from '@agentd/rpc-frame';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from './dispatcher.js';
import { createTestClient } from './testing.js';

let runner: CodeModeRunner;
beforeAll(() => {
  runner = new CodeModeRunner({ workers: 1 });
});
afterAll(async () => {
  await runner.close();
});

it('search describes a zod operation and execute runs it with zod validation and transforms', async () => {
  const d = new Dispatcher({ exposure: 'codemode', codeMode: { runner }, logger: silentLogger });
  const seen: unknown[] = [];
  d.registerOperation({
    kind: 'query',
    id: 'servers',
    description: 'List servers in a region',
    args: z.object({
      region: z
        .string()
        .min(2)
        .transform((r) => r.toUpperCase()),
      limit: z.number().int().optional(),
    }),
    outputType: 'string[]',
    handler: (args) => {
      seen.push(args);
      return [`${args.region}-1`];
    },
  });
  const client = await createTestClient(d);
  try {
    const found = await client.callTool('search', { query: 'servers' });
    const [entry] = (found.structuredContent as { operations: { declaration?: string }[] }).operations;
    expect(JSON.stringify(entry)).toContain('region: string');
    expect(JSON.stringify(entry)).toContain('limit?: number');

    const ok = await client.callTool('execute', {
      code: `return await api.query('servers', { region: 'eu' });`,
    });
    expect((ok.structuredContent as { result: unknown }).result).toEqual(['EU-1']);
    expect(seen).toEqual([{ region: 'EU' }]);

    const bad = await client.callTool('execute', {
      code: `return await api.query('servers', { region: 'e' });`,
    });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('Invalid arguments for query_servers: argument `region`:');
    expect(seen).toHaveLength(1);
  } finally {
    await client.close();
  }
});
