/** Paths an ACP agent names, confined to the run's working directory (real directories, real links). */
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveInside } from './acp-workspace.js';

async function dir(): Promise<string> {
  return realpathSync(await mkdtemp(join(tmpdir(), 'agentd-ws-')));
}

describe('resolveInside', () => {
  it('accepts paths inside, existing or not, absolute or relative, through links that stay inside', async () => {
    const root = await dir();
    mkdirSync(join(root, 'src'));
    symlinkSync(join(root, 'src'), join(root, 'link'));
    expect(await resolveInside(root, join(root, 'src'))).toBe(join(root, 'src'));
    expect(await resolveInside(root, 'src/new/deep.txt')).toBe(join(root, 'src/new/deep.txt'));
    expect(await resolveInside(root, 'link/a.txt')).toBe(join(root, 'src/a.txt'));
    expect(await resolveInside(root, root)).toBe(root);
  });

  it('refuses .., paths outside, links that lead out, and non-paths', async () => {
    const root = await dir();
    const outside = await dir();
    symlinkSync(outside, join(root, 'out'));
    symlinkSync(join(outside, 'file'), join(root, 'file-link'));
    const refusals = ['../x', 'src/../../x', join(outside, 'x'), 'out/x', 'file-link', 'a\0b', '', 42];
    for (const path of refusals) {
      await expect(resolveInside(root, path), String(path)).rejects.toMatchObject({ code: -32602 });
    }
  });
});
