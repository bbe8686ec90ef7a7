import { describe, expect, test } from 'vitest';
import { buildMethodTable, methodPath } from './method-table.js';
import type { OperationDescriptor } from './operation.js';

const op = (kind: OperationDescriptor['kind'], id: string): OperationDescriptor => ({
  kind,
  id,
  description: '',
  args: {},
  outputType: 'unknown',
});

describe('method table', () => {
  test('dots make namespaces and other characters become identifiers', () => {
    expect(methodPath('subagent.spawn')).toEqual(['subagent', 'spawn']);
    expect(methodPath('3d-render')).toEqual(['_3d_render']);
    expect(methodPath('delete')).toEqual(['delete']);
    expect(methodPath('query')).toBeUndefined();
    expect(methodPath('a..b')).toBeUndefined();
    expect(methodPath('x.__proto__')).toBeUndefined();
    expect(methodPath('then')).toBeUndefined();
  });

  test('ambiguous paths are left to the generic methods', () => {
    const table = buildMethodTable([
      op('query', 'Servers'),
      op('view', 'Servers'),
      op('command', 'a'),
      op('command', 'a.b'),
      op('report', 'my-report'),
      op('report', 'my_report'),
      op('query', 'ok.one'),
    ]);
    expect(table).toEqual([
      { path: ['a', 'b'], kind: 'command', id: 'a.b' },
      { path: ['ok', 'one'], kind: 'query', id: 'ok.one' },
    ]);
  });
});
