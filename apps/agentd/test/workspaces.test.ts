/**
 * Issue 36, a workspace per run, through the real daemon and real git: two concurrent runs of a
 * `worktree` profile on one repository each write the same file in their own worktree, each
 * result names its branch `agentd/<runId>` and its diff, the main checkout stays untouched; a copy
 * workspace; a spawn's directory inside the profile's, never outside; not a repository; prune.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, NdjsonClient, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agentd, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

/**
 * The agent: writes its instruction to `out.txt` where it was started and prints that directory;
 * an instruction `wait:TEXT` then waits until the test creates the gate file.
 */
const AGENT = `
const fs = require('node:fs');
const [instruction, gate] = process.argv.slice(1);
const text = instruction.replace(/^wait:/, '');
fs.writeFileSync('out.txt', text + '\\n');
console.log('cwd ' + process.cwd());
if (instruction.startsWith('wait:')) {
  const timer = setInterval(() => { if (fs.existsSync(gate)) clearInterval(timer); }, 20);
}
`;

const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...GIT_ENV },
  }).trim();
}

let work: string;
let repo: string;
let plainDir: string;
let gate: string;
let base: string;
let agentd: Agentd;
let client: NdjsonClient;

const agent = (cwd: string, workspace?: Json): Json => ({
  mode: 'plain',
  command: process.execPath,
  args: ['-e', AGENT, '{instruction}', join(work, 'gate')],
  cwd,
  ...(workspace === undefined ? {} : { workspace }),
});

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-ws-e2e-')));
  gate = join(work, 'gate');
  repo = join(work, 'repo');
  mkdirSync(join(repo, 'notes'), { recursive: true });
  git(work, 'init', '--quiet', '-b', 'main', repo);
  git(repo, 'config', 'user.name', 'Test');
  git(repo, 'config', 'user.email', 'test@example.com');
  writeFileSync(join(repo, 'README.md'), 'a repository\n');
  writeFileSync(join(repo, 'notes', 'keep.txt'), 'notes\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'start');
  base = git(repo, 'rev-parse', 'HEAD');
  plainDir = join(work, 'plain');
  mkdirSync(join(plainDir, 'sub'), { recursive: true });
  writeFileSync(join(plainDir, 'data.txt'), 'data\n');
  agentd = await startAgentd({
    args: ['--exposure', 'classic'],
    env: GIT_ENV,
    config: {
      defaultAgent: 'coder',
      agents: {
        coder: agent(repo, { mode: 'worktree', repo: '.' }),
        copier: agent(plainDir, { mode: 'copy' }),
        nogit: agent(plainDir, { mode: 'worktree' }),
        here: agent(plainDir),
      },
    },
  });
  client = await NdjsonClient.connect(agentd.socket);
});

afterAll(async () => {
  client?.stream.end();
  await agentd?.stop();
});

function tool(name: string, args: Json = {}): Promise<Json> {
  return client.modernResult('tools/call', { name, arguments: args });
}

const textOf = (result: Json): string => (result.content as { text: string }[])[0]?.text ?? '';

const cli = (...args: string[]) =>
  runCli([...args, '--socket', agentd.socket], cleanEnv({ XDG_RUNTIME_DIR: agentd.dir, ...GIT_ENV }));

/** The run's final status, waited for (attach answers once the run ends). */
async function ended(handle: unknown): Promise<Json> {
  return toolValue(await tool('query_subagent.attach', { handle }));
}

describe('a workspace per run', () => {
  it('two concurrent worktree runs on one repository edit the same file apart; each result names its branch and diff', async () => {
    const [a, b] = await Promise.all(
      ['wait:alpha', 'wait:beta'].map(async (instruction) =>
        toolValue(await tool('command_subagent.spawn', { instruction, async: true })),
      ),
    );
    const runs = [a, b] as Json[];
    for (const run of runs) {
      expect(run.workspace).toMatchObject({
        mode: 'worktree',
        state: 'live',
        branch: `agentd/${String(run.runId)}`,
      });
    }
    const paths = runs.map((run) => String((run.workspace as Json).path));
    expect(paths[0]).not.toBe(paths[1]);
    // Both agents are live at once, each having written out.txt in its own worktree.
    await vi.waitFor(
      () => {
        expect(readFileSync(join(paths[0] as string, 'out.txt'), 'utf8')).toBe('alpha\n');
        expect(readFileSync(join(paths[1] as string, 'out.txt'), 'utf8')).toBe('beta\n');
      },
      { timeout: 20_000, interval: 20 },
    );
    const live = toolValue(await tool('query_subagent.status', { handle: a?.handle }));
    expect(live).toMatchObject({ state: 'running' });
    expect(git(repo, 'worktree', 'list')).toContain(paths[0]);
    expect(existsSync(join(repo, 'out.txt'))).toBe(false);
    writeFileSync(gate, '');

    const finals = await Promise.all(runs.map((run) => ended(run.handle)));
    for (const [i, final] of finals.entries()) {
      const branch = `agentd/${String(final.runId)}`;
      expect(final).toMatchObject({ state: 'succeeded', output: `cwd ${paths[i]}` });
      expect(final.workspace).toMatchObject({
        mode: 'worktree',
        state: 'kept',
        branch,
        base,
        files: 1,
        insertions: 1,
        deletions: 0,
        paths: ['out.txt'],
        path: paths[i],
      });
      const { head } = final.workspace as { head: string };
      expect((final.workspace as Json).commits).toBe(`${base}..${head}`);
      expect(git(repo, 'show', `${branch}:out.txt`)).toBe(i === 0 ? 'alpha' : 'beta');
    }
    // The main checkout: same commit, nothing written, nothing uncommitted.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, 'out.txt'))).toBe(false);

    // Readable: agentd status names the branch, the commit range and the diff.
    const shown = await cli('status', String(a?.handle));
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `workspace: branch agentd/${String(a?.runId)} ${base.slice(0, 8)}..${String((finals[0]?.workspace as Json | undefined)?.head).slice(0, 8)}, 1 file +1 -0; kept at ${paths[0]}`,
    );
    // The stored history record carries the summary too.
    const history = join(agentd.dir, 'agentd', 'history');
    await vi.waitFor(() => expect(grepTree(history, `"branch":"agentd/${String(a?.runId)}"`)).toBe(true), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it('a spawn picks a directory inside the profile: in its worktree, or in place; outside is refused', async () => {
    const inside = toolValue(await tool('command_subagent.spawn', { instruction: 'delta', cwd: 'notes' }));
    const ws = inside.workspace as Json;
    expect(inside).toMatchObject({ state: 'succeeded', output: `cwd ${String(ws.path)}/notes` });
    expect(ws).toMatchObject({ state: 'kept', paths: ['notes/out.txt'], files: 1 });
    expect(existsSync(join(repo, 'notes', 'out.txt'))).toBe(false);

    const here = toolValue(
      await tool('command_subagent.spawn', { agent: 'here', instruction: 'epsilon', cwd: 'sub' }),
    );
    expect(here).toMatchObject({ state: 'succeeded', output: `cwd ${plainDir}/sub` });
    expect(here.workspace).toBeUndefined();

    for (const cwd of ['..', '../../etc', '/etc', 'notes/../..']) {
      const refused = await tool('command_subagent.spawn', { instruction: 'never', cwd });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/outside the profile's directory .*\(workspace_escape\)$/);
    }
    const byCli = await cli('spawn', '--cwd', '..', 'never');
    expect(byCli.code).toBe(1);
    expect(byCli.stderr).toContain('workspace_escape');
    // Nothing was started for a refused spawn: no worktree, no branch.
    expect(git(repo, 'branch', '--list', 'agentd/*').split('\n')).toHaveLength(3);
  });

  it('a copy workspace: the agent works on a copy, the directory stays as it was', async () => {
    const done = toolValue(await tool('command_subagent.spawn', { agent: 'copier', instruction: 'gamma' }));
    const ws = done.workspace as Json;
    expect(done).toMatchObject({ state: 'succeeded' });
    expect(ws).toMatchObject({ mode: 'copy', state: 'kept', source: plainDir, files: 1, paths: ['out.txt'] });
    expect(readFileSync(join(String(ws.path), 'out.txt'), 'utf8')).toBe('gamma\n');
    expect(readFileSync(join(String(ws.path), 'data.txt'), 'utf8')).toBe('data\n');
    expect(existsSync(join(plainDir, 'out.txt'))).toBe(false);
  });

  it('a profile whose directory is not a git repository is refused, plainly', async () => {
    const refused = await tool('command_subagent.spawn', { agent: 'nogit', instruction: 'never' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(`not a git repository: ${plainDir} (not_a_git_repo)`);
    const byCli = await cli('spawn', '--agent', 'nogit', 'never');
    expect(byCli.code).toBe(1);
    expect(byCli.stderr).toContain('not a git repository');
  });

  it('workspace prune removes the workspaces of ended runs, by the daemon or without one', async () => {
    const workspaces = join(agentd.dir, 'agentd', 'workspaces');
    const before = readdirSync(workspaces).filter((n) => !n.endsWith('.json'));
    expect(before.length).toBeGreaterThanOrEqual(4);
    const pruned = await cli('workspace', 'prune');
    expect(pruned).toMatchObject({ code: 0, stderr: '' });
    expect(pruned.stdout).toContain(`removed ${before.length} workspace(s) (the daemon's state directory)`);
    expect(readdirSync(workspaces)).toEqual([]);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    // The branches hold the runs' work: kept.
    expect(git(repo, 'branch', '--list', 'agentd/*').split('\n')).toHaveLength(3);

    // A kept workspace, then no daemon: the CLI prunes the state directory itself.
    const kept = toolValue(await tool('command_subagent.spawn', { instruction: 'zeta' }));
    expect(kept.workspace).toMatchObject({ state: 'kept' });
    client.stream.end();
    await agentd.stop();
    const local = await runCli(
      ['workspace', 'prune', '--socket', agentd.socket, '--json'],
      cleanEnv({ AGENTD_STATE_DIR: join(agentd.dir, 'agentd'), ...GIT_ENV }),
    );
    expect(local.code).toBe(0);
    expect(JSON.parse(local.stdout)).toEqual({
      removed: [kept.runId],
      live: [],
      branchesKept: [`agentd/${String(kept.runId)}`],
      branchesDeleted: [],
    });
    expect(existsSync(String((kept.workspace as Json).path))).toBe(false);
  });
});

/** True when a file under `dir` contains `text`. */
function grepTree(dir: string, text: string): boolean {
  if (!existsSync(dir)) return false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() ? grepTree(path, text) : readFileSync(path, 'utf8').includes(text)) return true;
  }
  return false;
}
