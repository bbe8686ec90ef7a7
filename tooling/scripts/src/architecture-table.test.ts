/** docs/architecture.md's dependency table agrees with every package.json of the workspace. */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { architectureDrift, cellNames, tableRows } from './architecture-table.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('the architecture dependency table', () => {
  it('reads names, notes, optional peers and none', () => {
    expect(
      cellNames('rpc-frame, server (the seam), lifecycle; optional peers: codemode, yaml (skills)'),
    ).toEqual({
      required: ['rpc-frame', 'server', 'lifecycle'],
      optional: ['codemode', 'yaml'],
    });
    expect(cellNames('none')).toEqual({ required: [], optional: [] });
    const rows = tableRows(
      '| package | depends on (@agentd) | outside dependencies |\n|---|---|---|\n| a | none | x |\n| apps/b | a | `@o/*` |\n\nafter',
    );
    expect(rows.map((r) => r.dir)).toEqual(['packages/a', 'apps/b']);
    expect(rows[1]?.outside.required).toEqual(['@o/*']);
  });

  it('matches the manifests of the workspace', () => {
    expect(architectureDrift(root)).toEqual([]);
  });
});
