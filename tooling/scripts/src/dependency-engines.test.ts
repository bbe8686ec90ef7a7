/** Tests for the check that installed dependencies run on the oldest supported Node. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enginesExcluding } from './dependency-engines.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-engines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function add(path: string, manifest: object): void {
  mkdirSync(join(dir, path), { recursive: true });
  writeFileSync(join(dir, path, 'package.json'), JSON.stringify(manifest));
}

describe('enginesExcluding', () => {
  it('names the packages, nested and scoped ones included, that need a newer Node than the floor', () => {
    add('node_modules/any', { name: 'any', version: '1.0.0' });
    add('node_modules/old-ok', { name: 'old-ok', version: '1.0.0', engines: { node: '>=18 || ^16.14' } });
    add('node_modules/@s/new', { name: '@s/new', version: '2.0.0', engines: { node: '>=22' } });
    add('node_modules/any/node_modules/deep', {
      name: 'deep',
      version: '3.0.0',
      engines: { node: '^20.19.0 || >=22.12' },
    });
    add('node_modules/odd', { name: 'odd', version: '1.0.0', engines: { node: 'latest' } });
    expect(enginesExcluding(join(dir, 'node_modules'), '>=20')).toEqual([
      '@s/new@2.0.0 needs Node >=22, not 20.0.0',
      'deep@3.0.0 needs Node ^20.19.0 || >=22.12, not 20.0.0',
      'odd@1.0.0: engines.node latest is not a range',
    ]);
    expect(enginesExcluding(join(dir, 'node_modules'), '>=22.12')).toEqual([
      'odd@1.0.0: engines.node latest is not a range',
    ]);
  });
});
