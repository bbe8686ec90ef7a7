import { describe, expect, test } from 'vitest';
import { createCodeModeTools, EXECUTE_TOOL, SEARCH_TOOL } from './tool-definitions.js';

describe('tool definitions', () => {
  test('exactly search and execute, with object input schemas', () => {
    expect(SEARCH_TOOL.name).toBe('search');
    expect(EXECUTE_TOOL.name).toBe('execute');
    expect(SEARCH_TOOL.inputSchema).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' }, kind: { enum: ['query', 'view', 'report', 'command'] } },
    });
    expect(EXECUTE_TOOL.inputSchema).toMatchObject({
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code'],
    });
  });

  test('the execute description teaches the namespace in use', () => {
    const [search, execute] = createCodeModeTools({ namespace: 'acme' });
    expect(execute.description).toContain('await acme.query(id, args)');
    expect(search.description).toContain('acme.');
    expect(EXECUTE_TOOL.description).toContain('await api.query(id, args)');
    expect(() => createCodeModeTools({ namespace: 'Promise' })).toThrow(
      expect.objectContaining({ code: 'invalid_namespace' }),
    );
  });

  test('the pair stays small: constant size whatever the catalogue', () => {
    const bytes = Buffer.byteLength(JSON.stringify({ tools: [SEARCH_TOOL, EXECUTE_TOOL] }));
    expect(bytes).toBeLessThan(3000);
  });

  test('derived from the operations served: their kinds only, and an example calling one of them', () => {
    const [search, execute] = createCodeModeTools({
      operations: [
        { kind: 'command', id: 'subagent.spawn', args: { type: 'object' } },
        {
          kind: 'query',
          id: 'runs.get',
          args: {
            type: 'object',
            properties: { id: { type: 'string' }, n: { type: 'integer' } },
            required: ['id', 'n'],
          },
        },
      ],
    });
    expect(execute.description).toContain(
      'Example: const result = await api.query("runs.get", { id: \'…\', n: 1 });',
    );
    expect(execute.description).toContain('`await api.query(id, args)` (also .command)');
    expect(execute.description).not.toContain('servers.list');
    expect(execute.description).not.toMatch(/\.view|\.report/);
    expect(search.description).toContain('(queries, commands)');
    expect((search.inputSchema.properties as { kind: { enum: string[] } }).kind.enum).toEqual([
      'query',
      'command',
    ]);
  });

  test('the static pair names no operation the embedder may not have', () => {
    expect(EXECUTE_TOOL.description).not.toContain('servers.list');
    expect(EXECUTE_TOOL.description).not.toContain('Example:');
  });
});
