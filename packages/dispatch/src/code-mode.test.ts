/** Code Mode exposure over a real CodeModeRunner: search/execute, per-peer filters re-checked on every sandboxed call. */
import { CodeModeRunner } from '@agentd/codemode';
import { type JsonObject, silentLogger, WireError } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientFilters } from './client-filters.js';
import { Dispatcher } from './dispatcher.js';
import { makeContext, rpc } from './test-support/request-context.js';

let runner: CodeModeRunner;
beforeAll(() => {
  runner = new CodeModeRunner({ workers: 1 });
});
afterAll(async () => {
  await runner.close();
});

const RESTRICTED: ClientFilters = {
  visible: { allow: ['query_*', 'report_*'], deny: ['query_secret'] },
  callable: { deny: { query_servers: { region: ['forbidden'] } } },
};

function dispatcher(
  filters: (peer: Peer) => ClientFilters | undefined = (peer) =>
    peer.origin === 'stdio' ? RESTRICTED : undefined,
) {
  const signals: boolean[] = [];
  const d = new Dispatcher({
    exposure: 'codemode',
    codeMode: { runner },
    logger: silentLogger,
    filtersFor: filters,
  });
  d.registerOperation({
    kind: 'query',
    id: 'servers',
    description: 'List servers in a region',
    args: { type: 'object', properties: { region: { type: 'string' } }, required: ['region'] },
    outputType: 'string[]',
    handler: (args, ctx) => {
      signals.push(ctx.signal instanceof AbortSignal && !ctx.signal.aborted);
      return [`${String(args.region)}-1`, `${String(args.region)}-2`];
    },
  });
  d.registerOperation({ kind: 'query', id: 'secret', description: 'Secret things', handler: () => 'secret' });
  d.registerOperation({
    kind: 'report',
    id: 'stats',
    description: 'Stats report',
    outputType: '{ n: number }',
    handler: () => ({ n: 7 }),
  });
  d.registerOperation({
    kind: 'command',
    id: 'drain',
    description: 'Drain the daemon',
    handler: () => 'drained',
  });
  d.registerTool({ name: 'status', description: 'Plain tool next to search/execute', handler: () => 'ok' });
  return { d, signals };
}

const stdio = () => makeContext({ peer: { origin: 'stdio', connectionId: 's1' } });

async function execute(d: Dispatcher, code: string, context = stdio()) {
  return d.handle(rpc('tools/call', { name: 'execute', arguments: { code } }), context);
}

describe('code mode exposure', () => {
  it('lists exactly search and execute (plus plain tools), even under an operation allow list', async () => {
    const { d } = dispatcher();
    for (const context of [makeContext(), stdio()]) {
      const list = await d.handle(rpc('tools/list'), context);
      expect((list.tools as JsonObject[]).map((t) => t.name)).toEqual(
        ['execute', 'search', 'status'].filter((n) => n !== 'status' || context.peer.origin !== 'stdio'),
      );
    }
  });

  it('hides search/execute only by deny rules', async () => {
    const { d } = dispatcher(() => ({ visible: { deny: ['execute'] } }));
    const list = await d.handle(rpc('tools/list'), makeContext());
    expect((list.tools as JsonObject[]).map((t) => t.name)).toEqual(['search', 'status']);
    const error = await d
      .handle(rpc('tools/call', { name: 'execute', arguments: { code: 'return 1' } }), makeContext())
      .catch((e: unknown) => e);
    expect((error as WireError).message).toBe('Unknown tool: execute');
  });

  it('does not answer classic {kind}_{id} names', async () => {
    const { d } = dispatcher();
    const error = await d
      .handle(rpc('tools/call', { name: 'query_servers', arguments: { region: 'eu' } }), makeContext())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireError);
    expect((error as WireError).message).toBe('Unknown tool: query_servers');
  });

  it('search returns only operations visible to the peer', async () => {
    const { d } = dispatcher();
    const all = await d.handle(rpc('tools/call', { name: 'search', arguments: {} }), makeContext());
    const ids = (all.structuredContent as { operations: { id: string }[] }).operations.map((o) => o.id);
    expect(ids).toEqual(['secret', 'servers', 'stats', 'drain']);
    const restricted = await d.handle(rpc('tools/call', { name: 'search', arguments: {} }), stdio());
    expect(
      (restricted.structuredContent as { operations: { id: string }[] }).operations.map((o) => o.id),
    ).toEqual(['servers', 'stats']);
    const narrowed = await d.handle(
      rpc('tools/call', { name: 'search', arguments: { query: 'region' } }),
      stdio(),
    );
    const entry = (narrowed.structuredContent as { operations: JsonObject[] }).operations[0];
    expect(entry).toMatchObject({ id: 'servers', kind: 'query', outputType: 'string[]' });
    expect(typeof entry?.signature).toBe('string');
    const badKind = await d.handle(
      rpc('tools/call', { name: 'search', arguments: { kind: 'nope' } }),
      stdio(),
    );
    expect(badKind.isError).toBe(true);
  });

  it('execute chains operation calls through the bridge with the execution signal', async () => {
    const { d, signals } = dispatcher();
    const result = await execute(
      d,
      "const a = await api.query('servers', { region: 'eu' }); const s = await api.report('stats', {}); return { a, n: s.n };",
    );
    expect(result.isError).toBeUndefined();
    expect((result.structuredContent as JsonObject).result).toEqual({ a: ['eu-1', 'eu-2'], n: 7 });
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual({
      a: ['eu-1', 'eu-2'],
      n: 7,
    });
    expect(signals).toEqual([true]);
  });

  it('re-checks filters on every sandboxed call: hidden looks missing, refusals and bad args are errors', async () => {
    const { d } = dispatcher();
    const outcome = await execute(
      d,
      `const out = [];
       for (const [kind, id, args] of [['command', 'drain', {}], ['query', 'secret', {}], ['query', 'nothere', {}],
                                       ['query', 'servers', { region: 'forbidden' }], ['query', 'servers', {}]]) {
         try { await api[kind](id, args); out.push('ok'); } catch (e) { out.push(e.message); }
       }
       return out;`,
    );
    expect((outcome.structuredContent as JsonObject).result).toEqual([
      'Unknown operation: command_drain',
      'Unknown operation: query_secret',
      'Unknown operation: query_nothere',
      'argument `region` value not allowed',
      'Invalid arguments for query_servers: argument `region` is required (required)',
    ]);
    // the management peer may call what stdio may not
    const management = await execute(d, "return await api.command('drain', {});", makeContext());
    expect((management.structuredContent as JsonObject).result).toBe('drained');
  });

  it('reports script failures as isError results', async () => {
    const { d } = dispatcher();
    const result = await execute(d, 'throw new Error("script broke")');
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toContain('script broke');
    expect(result._meta).toEqual({ 'dev.agentd/executeError': 'script_error' });
    const missing = await d.handle(rpc('tools/call', { name: 'execute', arguments: {} }), stdio());
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]?.text).toContain('argument `code` is required');
  });

  it('keeps schema resources for operations in code mode, filtered the same way', async () => {
    const { d } = dispatcher();
    const list = await d.handle(rpc('resources/list'), stdio());
    expect((list.resources as { uri: string }[]).map((r) => r.uri)).toEqual([
      'mcp://schema/query/servers',
      'mcp://schema/report/stats',
    ]);
  });

  it('describes search/execute per peer: only the kinds it can use, an example calling one of its operations', async () => {
    const { d } = dispatcher();
    const describe = async (context: ReturnType<typeof makeContext>) => {
      const list = await d.handle(rpc('tools/list'), context);
      const byName = new Map((list.tools as JsonObject[]).map((t) => [t.name, t]));
      return {
        execute: String(byName.get('execute')?.description),
        search: byName.get('search') as JsonObject,
      };
    };
    const management = await describe(makeContext());
    expect(management.execute).toContain('Example: const result = await api.query("secret", {});');
    expect(management.execute).not.toContain('.view');
    expect(management.search.description).toContain('(queries, reports, commands)');
    const restricted = await describe(stdio());
    // The restricted peer cannot see commands or query_secret: they are not even hinted at.
    expect(restricted.execute).toContain('(also .report)');
    expect(restricted.execute).toContain(
      `Example: const result = await api.query("servers", { region: '…' });`,
    );
    expect(restricted.execute).not.toMatch(/command|secret|drain/);
    expect(
      ((restricted.search.inputSchema as JsonObject).properties as { kind: { enum: string[] } }).kind.enum,
    ).toEqual(['query', 'report']);
    // Registering an operation changes the description.
    d.registerOperation({ kind: 'view', id: 'board', description: 'A view', handler: () => [] });
    expect((await describe(makeContext())).execute).toContain('.view');
  });
});
