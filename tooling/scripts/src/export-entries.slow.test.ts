/** Tests for reading entry points out of an exports map. */
import { describe, expect, it } from 'vitest';
import { exportEntries } from './export-entries.js';

describe('exportEntries', () => {
  it('lists subpaths with their condition targets and the source condition', () => {
    const entries = exportEntries({
      '.': { '@agentd/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './node': { import: { types: './dist/node.d.ts', default: './dist/node.js' } },
      './package.json': './package.json',
      './features/*': './dist/features/*.js',
    });
    expect(entries).toEqual([
      {
        subpath: '.',
        targets: [
          ['@agentd/source', './src/index.ts'],
          ['types', './dist/index.d.ts'],
          ['default', './dist/index.js'],
        ],
        source: './src/index.ts',
      },
      {
        subpath: './node',
        targets: [
          ['import.types', './dist/node.d.ts'],
          ['import.default', './dist/node.js'],
        ],
        source: undefined,
      },
    ]);
  });

  it('treats a string or a condition map as the root entry', () => {
    expect(exportEntries('./index.js')).toEqual([
      { subpath: '.', targets: [['', './index.js']], source: undefined },
    ]);
    expect(exportEntries({ default: './a.js' })[0]?.subpath).toBe('.');
    expect(exportEntries(undefined)).toEqual([]);
  });
});
