import { describe, expect, test } from 'vitest';
import type { OperationDescriptor } from './operation.js';
import { searchOperations } from './search-operations.js';
import { OPERATIONS } from './test-support/catalogue.js';

const op = (kind: OperationDescriptor['kind'], id: string, description = ''): OperationDescriptor => ({
  kind,
  id,
  description,
  args: { type: 'object' },
  outputType: 'unknown',
});

describe('searchOperations', () => {
  test('matches id or description case-insensitively, sorted by kind then id', () => {
    const { results, truncated, total } = searchOperations(OPERATIONS, { query: 'SERVER' });
    expect(results.map((r) => `${r.kind}:${r.id}`)).toEqual([
      'query:GetAllServers',
      'query:servers.get',
      'report:ServerStats',
    ]);
    expect(truncated).toBe(false);
    expect(total).toBe(3);
  });

  test('every word must match; an empty query lists everything', () => {
    expect(searchOperations(OPERATIONS, { query: 'start subagent' }).results.map((r) => r.id)).toEqual([
      'subagent.spawn',
    ]);
    expect(searchOperations(OPERATIONS, { query: 'start servers' }).results).toEqual([]);
    expect(searchOperations(OPERATIONS, {}).total).toBe(OPERATIONS.length);
    expect(searchOperations(OPERATIONS, { query: '   ' }).total).toBe(OPERATIONS.length);
  });

  test('filters by kind and refuses an unknown kind', () => {
    expect(searchOperations(OPERATIONS, { kind: 'command' }).results.map((r) => r.id)).toEqual([
      'subagent.spawn',
    ]);
    expect(() => searchOperations(OPERATIONS, { kind: 'mutation' })).toThrow(
      expect.objectContaining({ code: 'invalid_kind' }),
    );
  });

  test('caps results with a truncated flag', () => {
    const many = Array.from({ length: 120 }, (_, i) => op('query', `item${String(i).padStart(3, '0')}`));
    const first = searchOperations(many, {});
    expect(first.results).toHaveLength(50);
    expect(first).toMatchObject({ truncated: true, total: 120 });
    expect(searchOperations(many, {}, { limit: 5 }).results.map((r) => r.id)).toEqual([
      'item000',
      'item001',
      'item002',
      'item003',
      'item004',
    ]);
  });

  test('entries carry args, outputType and a TypeScript signature for the typed method', () => {
    const [spawn] = searchOperations(OPERATIONS, { query: 'subagent.spawn' }).results;
    expect(spawn).toEqual({
      id: 'subagent.spawn',
      kind: 'command',
      description: 'Start a subagent with an instruction',
      args: [
        { name: 'instruction', tsType: 'string', optional: false },
        { name: 'agent', tsType: 'string', optional: true },
        { name: 'async', tsType: 'boolean', optional: true },
      ],
      outputType: 'SubagentStatus',
      signature: [
        'declare namespace api.subagent {',
        '  /** Start a subagent with an instruction */',
        '  function spawn(args: {',
        '    instruction: string;',
        '    /** Profile name */',
        '    agent?: string;',
        '    async?: boolean;',
        '  }): Promise<SubagentStatus>;',
        '}',
      ].join('\n'),
    });
  });

  test('signatures follow the namespace; an optional-only argument object is optional', () => {
    const [stats] = searchOperations(OPERATIONS, { query: 'ServerStats' }, { namespace: 'acme' }).results;
    expect(stats?.signature).toBe(
      [
        'declare namespace acme {',
        '  /** Counts of servers by state */',
        '  function ServerStats(args?: Record<string, unknown>): Promise<{ up: number; down: number }>;',
        '}',
      ].join('\n'),
    );
  });

  test('operations without an unambiguous typed method get the generic overload', () => {
    const ops = [
      op('query', 'Servers', 'as a query'),
      op('view', 'Servers', 'as a view'),
      op('query', 'query'),
      op('query', 'a.b'),
      op('command', 'a'),
    ];
    const signatures = Object.fromEntries(
      searchOperations(ops, {}).results.map((r) => [`${r.kind}:${r.id}`, r.signature]),
    );
    expect(signatures['query:Servers']).toContain(
      'function query(id: "Servers", args?: Record<string, unknown>): Promise<unknown>;',
    );
    expect(signatures['view:Servers']).toContain(
      'function view(id: "Servers", args?: Record<string, unknown>): Promise<unknown>;',
    );
    expect(signatures['query:query']).toContain('function query(id: "query",');
    expect(signatures['query:a.b']).toContain('declare namespace api.a {\n  function b(');
    expect(signatures['command:a']).toContain('function command(id: "a",');
  });
});
