/** Workspaces against real git repositories: concurrent worktrees, keep policies, refusals, copies, prune. */
import { execFileSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canMount, withTinyDisk } from '../history/test-support/tiny-disk.js';
import { asWorkspaceError } from './git-command.js';
import { type PreparedWorkspace, prepareWorkspace, pruneWorkspaces } from './workspace.js';
import { WORKSPACE_DEFAULTS } from './workspace-config.js';

let work: string;
const saved = { global: process.env.GIT_CONFIG_GLOBAL, system: process.env.GIT_CONFIG_NOSYSTEM };

beforeAll(async () => {
  // The machine's git configuration must not change what the tests see.
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  work = await realpath(await mkdtemp(join(tmpdir(), 'agentd-ws-')));
});

afterAll(async () => {
  for (const [key, value] of [
    ['GIT_CONFIG_GLOBAL', saved.global],
    ['GIT_CONFIG_NOSYSTEM', saved.system],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await rm(work, { recursive: true, force: true });
});

function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();
}

let repos = 0;
async function repo(): Promise<{ dir: string; state: string; head: string }> {
  const dir = join(work, `repo${++repos}`);
  await mkdir(join(dir, 'src'), { recursive: true });
  sh(work, 'init', '--quiet', '-b', 'main', dir);
  sh(dir, 'config', 'user.name', 'Test');
  sh(dir, 'config', 'user.email', 'test@example.com');
  await writeFile(join(dir, 'shared.txt'), 'one\ntwo\nthree\n');
  await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '--quiet', '-m', 'start');
  return { dir, state: join(work, `state${repos}`), head: sh(dir, 'rev-parse', 'HEAD') };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function refusal(promise: Promise<unknown>): Promise<LocalError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LocalError);
  return error as LocalError;
}

const worktree = { ...WORKSPACE_DEFAULTS, mode: 'worktree' as const };

describe('worktree', () => {
  it('gives two concurrent runs their own worktree and branch; each result names its diff', async () => {
    const { dir, state, head } = await repo();
    const [one, two] = (await Promise.all(
      ['run_one', 'run_two'].map((runId) =>
        prepareWorkspace({ workspace: worktree, cwd: dir, runId, stateDir: state }),
      ),
    )) as [PreparedWorkspace, PreparedWorkspace];
    expect(one.cwd).not.toBe(two.cwd);
    expect(one.branch).toBe('agentd/run_one');

    await writeFile(join(one.cwd, 'shared.txt'), 'one\nTWO by one\nthree\nfour\n');
    await writeFile(join(two.cwd, 'shared.txt'), 'two was here\n');
    await writeFile(join(two.cwd, 'src', 'new.ts'), 'export const n = 2;\n');
    // One commits its own work; the other leaves it uncommitted (committed on its branch at the end).
    sh(one.cwd, 'commit', '--quiet', '-am', 'one edits');
    expect(await readFile(join(one.cwd, 'shared.txt'), 'utf8')).toBe('one\nTWO by one\nthree\nfour\n');
    expect(await readFile(join(dir, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    const [a, b] = await Promise.all([one.finish(), two.finish()]);
    expect(a).toMatchObject({
      mode: 'worktree',
      branch: 'agentd/run_one',
      base: head,
      files: 1,
      insertions: 2,
      deletions: 1,
      paths: ['shared.txt'],
      path: one.path,
    });
    expect(a?.mode === 'worktree' && a.commits).toBe(`${head}..${sh(dir, 'rev-parse', 'agentd/run_one')}`);
    expect(b).toMatchObject({ branch: 'agentd/run_two', base: head, files: 2, insertions: 2, deletions: 3 });
    expect(b?.mode === 'worktree' && [...b.paths].sort()).toEqual(['shared.txt', 'src/new.ts']);
    expect(sh(dir, 'show', 'agentd/run_one:shared.txt')).toBe('one\nTWO by one\nthree\nfour');
    expect(sh(dir, 'show', 'agentd/run_two:shared.txt')).toBe('two was here');
    expect(sh(dir, 'status', '--porcelain')).toBe('');
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(head);
    // Finishing twice answers the same.
    expect(await one.finish()).toBe(a);
  });

  it('applies keep: changed keeps changed work, drops unchanged; never drops the worktree, not the work; always keeps', async () => {
    const { dir, state } = await repo();
    const unchanged = await prepareWorkspace({
      workspace: worktree,
      cwd: dir,
      runId: 'run_idle',
      stateDir: state,
    });
    const idle = await unchanged.finish();
    expect(idle).toMatchObject({ files: 0, insertions: 0, deletions: 0 });
    expect(idle?.path).toBeUndefined();
    expect(await exists(unchanged.path as string)).toBe(false);
    expect(sh(dir, 'branch', '--list', 'agentd/run_idle')).toBe('');

    const never = await prepareWorkspace({
      workspace: { ...worktree, keep: 'never' },
      cwd: dir,
      runId: 'run_never',
      stateDir: state,
    });
    await writeFile(join(never.cwd, 'shared.txt'), 'changed\n');
    expect(await never.finish()).toMatchObject({ files: 1 });
    expect(await exists(never.path as string)).toBe(false);
    expect(sh(dir, 'show', 'agentd/run_never:shared.txt')).toBe('changed');

    const always = await prepareWorkspace({
      workspace: { ...worktree, keep: 'always' },
      cwd: dir,
      runId: 'run_always',
      stateDir: state,
    });
    expect(await always.finish()).toMatchObject({ files: 0, path: always.path });
    expect(await exists(always.path as string)).toBe(true);
  });

  it('starts a spawn in its subdirectory, and refuses one outside the profile directory', async () => {
    const { dir, state } = await repo();
    const inSrc = await prepareWorkspace({
      workspace: worktree,
      cwd: dir,
      runId: 'run_sub',
      stateDir: state,
      subdir: 'src',
    });
    expect(inSrc.cwd).toBe(join(inSrc.path as string, 'src'));
    expect(await readFile(join(inSrc.cwd, 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    await inSrc.finish();

    await symlink(work, join(dir, 'out'));
    for (const subdir of ['..', '../..', '/etc', 'out', 'src/../../']) {
      expect(
        (
          await refusal(
            prepareWorkspace({ workspace: worktree, cwd: dir, runId: 'run_esc', stateDir: state, subdir }),
          )
        ).code,
      ).toBe('workspace_escape');
    }
    const inPlace = await prepareWorkspace({
      workspace: undefined,
      cwd: dir,
      runId: 'run_here',
      stateDir: state,
      subdir: 'src',
    });
    expect(inPlace).toMatchObject({ mode: 'in-place', cwd: join(dir, 'src') });
    expect(await inPlace.finish()).toBeUndefined();
    expect(
      (
        await refusal(
          prepareWorkspace({ workspace: undefined, cwd: dir, runId: 'r', stateDir: state, subdir: 'out' }),
        )
      ).code,
    ).toBe('workspace_escape');
  });

  it('refuses plainly: not a repository, a missing one, an existing branch, past maxLive', async () => {
    const { dir, state } = await repo();
    const plain = join(work, 'plain');
    await mkdir(plain, { recursive: true });
    const notRepo = await refusal(
      prepareWorkspace({ workspace: worktree, cwd: plain, runId: 'run_a', stateDir: state }),
    );
    expect(notRepo.code).toBe('not_a_git_repo');
    expect(notRepo.message).toContain(plain);
    const missing = await refusal(
      prepareWorkspace({
        workspace: { ...worktree, repo: 'nowhere' },
        cwd: dir,
        runId: 'run_a',
        stateDir: state,
      }),
    );
    expect(missing.code).toBe('repo_missing');

    sh(dir, 'branch', 'agentd/run_taken');
    const taken = await refusal(
      prepareWorkspace({ workspace: worktree, cwd: dir, runId: 'run_taken', stateDir: state }),
    );
    expect(taken.code).toBe('branch_exists');
    expect(taken.message).toContain('agentd/run_taken');

    const first = await prepareWorkspace({
      workspace: { ...worktree, maxLive: 1 },
      cwd: dir,
      runId: 'run_l1',
      stateDir: state,
    });
    const limited = await refusal(
      prepareWorkspace({
        workspace: { ...worktree, maxLive: 1 },
        cwd: dir,
        runId: 'run_l2',
        stateDir: state,
      }),
    );
    expect(limited.code).toBe('workspace_limit');
    await first.finish();
    await (
      await prepareWorkspace({
        workspace: { ...worktree, maxLive: 1 },
        cwd: dir,
        runId: 'run_l2',
        stateDir: state,
      })
    ).finish();
  });

  it('names a full disk as such', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(asWorkspaceError(full, 'cannot copy')).toMatchObject({ code: 'disk_full' });
  });

  // A real full disk needs a small file system: a tmpfs, where this user may mount one.
  it.skipIf(!canMount())('refuses with disk_full when the state directory’s disk fills up', async () => {
    const { dir } = await repo();
    await writeFile(join(dir, 'big.bin'), Buffer.alloc(512 * 1024, 7));
    sh(dir, 'add', '-A');
    sh(dir, 'commit', '--quiet', '-m', 'big');
    const state = join(work, 'tiny');
    await mkdir(state);
    await withTinyDisk(state, '128k', async () => {
      const full = await refusal(
        prepareWorkspace({ workspace: worktree, cwd: dir, runId: 'run_full', stateDir: state }),
      );
      expect(full.code).toBe('disk_full');
      expect(sh(dir, 'branch', '--list', 'agentd/run_full')).toBe('');
      const copy = await refusal(
        prepareWorkspace({
          workspace: { ...WORKSPACE_DEFAULTS, mode: 'copy' },
          cwd: dir,
          runId: 'run_full2',
          stateDir: state,
        }),
      );
      expect(copy.code).toBe('disk_full');
    });
  });
});

describe('copy', () => {
  it('works on a copy and summarises what changed; the source stays as it was', async () => {
    const source = join(work, 'notes');
    await mkdir(join(source, 'deep'), { recursive: true });
    await writeFile(join(source, 'a.txt'), 'alpha\n');
    await writeFile(join(source, 'deep', 'b.txt'), 'beta\n');
    const state = join(work, 'copy-state');
    const ws = await prepareWorkspace({
      workspace: { ...WORKSPACE_DEFAULTS, mode: 'copy' },
      cwd: source,
      runId: 'run_c',
      stateDir: state,
      subdir: 'deep',
    });
    expect(ws.cwd).toBe(join(ws.path as string, 'deep'));
    await writeFile(join(ws.cwd, 'b.txt'), 'BETA\nmore\n');
    await writeFile(join(ws.path as string, 'c.txt'), 'new\n');
    const summary = await ws.finish();
    expect(summary).toMatchObject({
      mode: 'copy',
      source,
      files: 2,
      insertions: 3,
      deletions: 1,
      path: ws.path,
    });
    expect(summary?.mode === 'copy' && [...(summary.paths ?? [])].sort()).toEqual(['c.txt', 'deep/b.txt']);
    expect(await readFile(join(source, 'deep', 'b.txt'), 'utf8')).toBe('beta\n');

    const dropped = await prepareWorkspace({
      workspace: { ...WORKSPACE_DEFAULTS, mode: 'copy', keep: 'never' },
      cwd: source,
      runId: 'run_d',
      stateDir: state,
    });
    await writeFile(join(dropped.cwd, 'a.txt'), 'changed\n');
    expect(await dropped.finish()).toMatchObject({ files: 1 });
    expect(await exists(dropped.path as string)).toBe(false);
  });
});

describe('pruneWorkspaces', () => {
  it('removes the kept workspaces of ended runs, leaves live ones and the branches', async () => {
    const { dir, state } = await repo();
    const kept = await prepareWorkspace({
      workspace: { ...worktree, keep: 'always' },
      cwd: dir,
      runId: 'run_kept',
      stateDir: state,
    });
    await writeFile(join(kept.cwd, 'shared.txt'), 'kept work\n');
    await kept.finish();
    const running = await prepareWorkspace({
      workspace: worktree,
      cwd: dir,
      runId: 'run_live',
      stateDir: state,
    });

    const report = await pruneWorkspaces({ stateDir: state });
    expect(report).toEqual({
      removed: ['run_kept'],
      live: ['run_live'],
      branchesKept: ['agentd/run_kept'],
      branchesDeleted: [],
    });
    expect(await exists(kept.path as string)).toBe(false);
    expect(await exists(running.path as string)).toBe(true);
    expect(sh(dir, 'worktree', 'list')).not.toContain('run_kept');
    expect(sh(dir, 'show', 'agentd/run_kept:shared.txt')).toBe('kept work');
    await running.finish();
  });

  it("commits an orphaned worktree's leftovers on its branch, and deletes a branch that holds nothing", async () => {
    const { dir, state, head } = await repo();
    const idle = await prepareWorkspace({
      workspace: { ...worktree, keep: 'always' },
      cwd: dir,
      runId: 'run_idle',
      stateDir: state,
    });
    await idle.finish();
    // What a daemon killed mid-run leaves: its worktree, with uncommitted work, and its record
    // naming a pid that is gone.
    const orphan = join(state, 'workspaces', 'run_orphan');
    sh(dir, 'worktree', 'add', '--quiet', '-b', 'agentd/run_orphan', orphan, head);
    await writeFile(join(orphan, 'new.txt'), 'left behind\n');
    const meta = { runId: 'run_orphan', mode: 'worktree', path: orphan, source: dir, daemonPid: 2 ** 22 + 1 };
    await writeFile(
      join(state, 'workspaces', 'run_orphan.json'),
      JSON.stringify({ ...meta, ended: false, branch: 'agentd/run_orphan', base: head }),
    );
    const report = await pruneWorkspaces({ stateDir: state });
    expect(report.removed.sort()).toEqual(['run_idle', 'run_orphan']);
    expect(report.branchesKept).toEqual(['agentd/run_orphan']);
    expect(report.branchesDeleted).toEqual(['agentd/run_idle']);
    expect(sh(dir, 'show', 'agentd/run_orphan:new.txt')).toBe('left behind');
    expect(sh(dir, 'branch', '--list', 'agentd/run_idle')).toBe('');
    expect(sh(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(await exists(orphan)).toBe(false);
  });
});
