/** Tests for the published-manifest metadata check. */
import { describe, expect, it } from 'vitest';
import type { PackageManifest } from './public-packages.js';
import { metadataProblems, REPOSITORY_URL } from './release-metadata.js';

const good: PackageManifest = {
  name: '@agentd/x',
  version: '0.1.0',
  license: 'MIT',
  repository: { type: 'git', url: `git+${REPOSITORY_URL}.git`, directory: 'packages/x' },
  homepage: `${REPOSITORY_URL}/tree/main/packages/x#readme`,
  bugs: { url: `${REPOSITORY_URL}/issues` },
  keywords: ['mcp'],
  engines: { node: '>=20' },
};

describe('metadataProblems', () => {
  it('accepts a complete manifest', () => {
    expect(metadataProblems(good, 'packages/x')).toEqual([]);
  });

  it('names every missing or wrong field', () => {
    const { repository: _r, keywords: _k, ...rest } = good;
    expect(metadataProblems({ ...rest, engines: { node: '>=22' }, license: 'ISC' }, 'packages/x')).toEqual([
      'license is ISC, not MIT',
      'repository is not an object with url and directory',
      'no keywords',
      'engines.node is >=22, expected >=20[.minor.patch]',
    ]);
    expect(metadataProblems(good, 'apps/x')).toEqual([
      'repository.directory is packages/x, not apps/x',
      `homepage is ${REPOSITORY_URL}/tree/main/packages/x#readme`,
    ]);
  });
});
