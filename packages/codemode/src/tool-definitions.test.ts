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
    const [search, execute] = createCodeModeTools({ namespace: 'myko' });
    expect(execute.description).toContain('await myko.query(id, args)');
    expect(search.description).toContain('myko.');
    expect(EXECUTE_TOOL.description).toContain('await agentd.query(id, args)');
    expect(() => createCodeModeTools({ namespace: 'Promise' })).toThrow(
      expect.objectContaining({ code: 'invalid_namespace' }),
    );
  });

  test('the pair stays small: constant size whatever the catalogue', () => {
    const bytes = Buffer.byteLength(JSON.stringify({ tools: [SEARCH_TOOL, EXECUTE_TOOL] }));
    expect(bytes).toBeLessThan(3000);
  });
});
