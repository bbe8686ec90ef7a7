/** Tests for discovering the publishable packages from pnpm-workspace.yaml. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { publicPackages, workspaceGlobs } from './public-packages.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('workspaceGlobs', () => {
  it('reads the packages list, quoted or not, and ignores other keys', () => {
    const yaml =
      "packages:\n  - packages/*\n  - 'apps/*' # daemons\n  - tooling\nallowBuilds:\n  esbuild: false\n";
    expect(workspaceGlobs(yaml)).toEqual(['packages/*', 'apps/*', 'tooling']);
  });

  it('refuses patterns it would get wrong', () => {
    expect(() => workspaceGlobs('packages:\n  - packages/**\n')).toThrow(/unsupported/);
    expect(() => workspaceGlobs("packages:\n  - '!apps/x'\n")).toThrow(/unsupported/);
  });
});

describe('publicPackages', () => {
  it('finds every non-private package under every workspace directory, apps included', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-ws-'));
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n  - apps/*\n');
    const add = (path: string, manifest: object) => {
      mkdirSync(join(dir, path), { recursive: true });
      writeFileSync(join(dir, path, 'package.json'), JSON.stringify(manifest));
    };
    add('packages/a', { name: '@s/a', version: '0.1.0' });
    add('packages/hidden', { name: '@s/hidden', version: '0.1.0', private: true });
    add('apps/daemon', { name: '@s/daemon', version: '0.1.0' });
    mkdirSync(join(dir, 'packages/no-manifest'));
    expect(publicPackages(dir).map((p) => [p.name, p.relativeDir])).toEqual([
      ['@s/a', 'packages/a'],
      ['@s/daemon', 'apps/daemon'],
    ]);
  });
});
