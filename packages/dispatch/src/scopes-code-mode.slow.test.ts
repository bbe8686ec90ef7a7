/** `requiredScopes` on operations in Code Mode: search, the tool descriptions and every sandboxed call, over a real runner. */
import { CodeModeRunner } from '@agentd/codemode';
import { type JsonObject, silentLogger } from '@agentd/rpc-frame';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { makeContext, rpc } from './test-support/request-context.js';

let runner: CodeModeRunner;
beforeAll(() => {
  runner = new CodeModeRunner({ workers: 1 });
});
afterAll(async () => {
  await runner.close();
});

function dispatcher() {
  const d = new Dispatcher({ exposure: 'codemode', codeMode: { runner }, logger: silentLogger });
  d.registerOperation({ kind: 'query', id: 'runs', description: 'List runs', handler: () => ['r1'] });
  d.registerOperation({
    kind: 'command',
    id: 'drain',
    description: 'Drain the daemon',
    requiredScopes: ['agentd:operator'],
    handler: () => 'drained',
  });
  return d;
}

const token = (scopes: string[]) =>
  makeContext({
    era: 'modern',
    peer: { transport: 'http', auth: { principal: 'p', scopes, scheme: 'oauth' } },
  });

async function search(d: Dispatcher, scopes: string[]) {
  const found = await d.handle(rpc('tools/call', { name: 'search', arguments: {} }), token(scopes));
  return (found.structuredContent as { operations: { id: string }[] }).operations.map((o) => o.id);
}

describe('scopes in Code Mode', () => {
  it('search and the execute description show only operations the token has scopes for', async () => {
    const d = dispatcher();
    expect(await search(d, [])).toEqual(['runs']);
    expect(await search(d, ['agentd:operator'])).toEqual(['runs', 'drain']);
    const executeText = async (scopes: string[]) => {
      const list = await d.handle(rpc('tools/list'), token(scopes));
      return String((list.tools as JsonObject[]).find((t) => t.name === 'execute')?.description);
    };
    expect(await executeText(['agentd:operator'])).toContain('command');
    expect(await executeText([])).not.toContain('command');
  });

  it('a sandboxed call of a scoped operation without the scope is an unknown operation', async () => {
    const d = dispatcher();
    const code = "try { return await api.command('drain', {}); } catch (e) { return e.message; }";
    const denied = await d.handle(rpc('tools/call', { name: 'execute', arguments: { code } }), token([]));
    expect((denied.structuredContent as JsonObject).result).toBe('Unknown operation: command_drain');
    const allowed = await d.handle(
      rpc('tools/call', { name: 'execute', arguments: { code } }),
      token(['agentd:operator']),
    );
    expect((allowed.structuredContent as JsonObject).result).toBe('drained');
  });
});
