/**
 * A workspace per run. Wiring (the daemon, at spawn):
 *
 *   const ws = await prepareWorkspace({ workspace: profile.workspace, cwd: profile.cwd ?? process.cwd(),
 *                                       runId, stateDir, subdir: request.cwd });
 *   // start the agent in ws.cwd; when the run ends:
 *   const summary = await ws.finish();   // undefined in-place; else put it in the run's result
 *
 * `prepareWorkspace` throws plain LocalErrors: `repo_missing`, `not_a_git_repo`, `branch_exists`,
 * `disk_full`, `workspace_escape` (subdir outside the profile's directory), `workspace_limit`
 * (`maxLive`), `workspace_failed`. `finish()` runs once (later calls get the same answer) and
 * throws the same kinds of errors. `pruneWorkspaces` serves `agentd workspace prune`.
 *
 * Workspaces live in `<stateDir>/workspaces/<runId>`, each with `<runId>.json` beside it naming
 * its repository, so a prune after a restart (or a crash) finds them.
 */
import { mkdir, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { type CopySummary, copyDirectory, finishCopy } from './copy-workspace.js';
import { asWorkspaceError, git, workspaceError } from './git-command.js';
import {
  addWorktree,
  finishWorktree,
  pruneWorktrees,
  removeWorktree,
  repositoryOf,
  type Worktree,
  type WorktreeSummary,
} from './git-worktree.js';
import { type WorkspaceConfig, workspaceConfig } from './workspace-config.js';
import { isInside, resolveSubdir } from './workspace-root.js';

export type WorkspaceSummary = WorktreeSummary | CopySummary;

export interface PrepareOptions {
  /** The profile's `workspace` setting; absent means `in-place`. */
  workspace: Partial<WorkspaceConfig> | undefined;
  /** The profile's directory: the root a spawn may pick a subdirectory of. */
  cwd: string;
  runId: string;
  stateDir: string;
  /** A subdirectory of `cwd` the spawn asked for (relative, or absolute inside it). */
  subdir?: string;
}

export interface PreparedWorkspace {
  mode: WorkspaceConfig['mode'];
  /** Where the agent starts. */
  cwd: string;
  /** The worktree or copy (absent in-place). */
  path?: string;
  /** The run's branch (worktree). */
  branch?: string;
  /** Summarises the run's work and applies `keep`; undefined in-place. */
  finish(): Promise<WorkspaceSummary | undefined>;
}

interface WorkspaceMeta {
  runId: string;
  mode: 'worktree' | 'copy';
  path: string;
  /** The repository's top level (worktree) or the copied directory. */
  source: string;
  daemonPid: number;
  ended: boolean;
  /** Worktree: the run's branch and the commit it started from (prune summarises with them). */
  branch?: string;
  base?: string;
}

/** Live workspaces per source (this process), for `maxLive`. */
const live = new Map<string, number>();
const liveRuns = new Set<string>();
/** git worktree add/remove of one repository one at a time (they share its administrative files). */
const gitTurns = new Map<string, Promise<unknown>>();

function inTurn<T>(key: string, task: () => Promise<T>): Promise<T> {
  const run = (gitTurns.get(key) ?? Promise.resolve()).then(task, task);
  const settled = run.catch(() => {});
  gitTurns.set(key, settled);
  void settled.then(() => {
    if (gitTurns.get(key) === settled) gitTurns.delete(key);
  });
  return run;
}

function workspacesDir(stateDir: string): string {
  return join(stateDir, 'workspaces');
}

async function writeMeta(stateDir: string, meta: WorkspaceMeta): Promise<void> {
  await writeFile(join(workspacesDir(stateDir), `${meta.runId}.json`), `${JSON.stringify(meta)}\n`, {
    mode: 0o600,
  });
}

function claim(source: string, runId: string, maxLive: number): () => void {
  const count = live.get(source) ?? 0;
  if (count >= maxLive) {
    throw workspaceError(
      'workspace_limit',
      `${count} runs already work in their own workspace of ${source} (workspace.maxLive)`,
    );
  }
  live.set(source, count + 1);
  liveRuns.add(runId);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    liveRuns.delete(runId);
    const left = (live.get(source) ?? 1) - 1;
    if (left <= 0) live.delete(source);
    else live.set(source, left);
  };
}

/** Where the agent works inside the workspace: the same place relative to the source as `dir`. */
function placeIn(
  source: string,
  workspace: string,
  dir: string,
  root: string,
  subdir: string | undefined,
): string {
  if (isInside(source, dir)) return join(workspace, relative(source, dir));
  if (subdir !== undefined && dir !== root) {
    throw workspaceError(
      'workspace_escape',
      `the directory ${JSON.stringify(subdir)} is not inside ${source}`,
    );
  }
  return workspace;
}

export async function prepareWorkspace(options: PrepareOptions): Promise<PreparedWorkspace> {
  const config = workspaceConfig(options.workspace);
  const { root, dir } = await resolveSubdir(options.cwd, options.subdir);
  if (config.mode === 'in-place') return { mode: 'in-place', cwd: dir, finish: async () => undefined };
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(options.runId)) {
    throw workspaceError('workspace_failed', `not a run id that can name a branch: ${options.runId}`);
  }
  const workspaces = workspacesDir(options.stateDir);
  const path = join(workspaces, options.runId);
  await mkdir(workspaces, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw asWorkspaceError(error, `cannot make ${workspaces}`);
  });
  const repo = resolve(root, config.repo);
  if (config.mode === 'worktree') {
    const toplevel = await repositoryOf(repo);
    const release = claim(toplevel, options.runId, config.maxLive);
    let made: Worktree | undefined;
    try {
      const tree = await inTurn(toplevel, () => addWorktree(toplevel, path, options.runId));
      made = tree;
      await writeMeta(options.stateDir, {
        runId: options.runId,
        mode: 'worktree',
        path,
        source: toplevel,
        daemonPid: process.pid,
        ended: false,
        branch: tree.branch,
        base: tree.base,
      });
      const cwd = placeIn(toplevel, path, dir, root, options.subdir);
      await mkdir(cwd, { recursive: true });
      const finish = once(async () => {
        try {
          const { summary, kept } = await inTurn(toplevel, () =>
            finishWorktree(tree, options.runId, config.keep),
          );
          await ended(options.stateDir, options.runId, kept);
          return summary;
        } finally {
          release();
        }
      });
      return { mode: 'worktree', cwd, path, branch: tree.branch, finish };
    } catch (error) {
      release();
      if (made !== undefined) await discardWorktree(options.stateDir, options.runId, made);
      throw asWorkspaceError(error, 'cannot prepare the worktree');
    }
  }
  const source = await resolveSubdir(root, config.repo === '.' ? undefined : config.repo)
    .then((found) => found.dir)
    .catch((error: unknown) => {
      throw workspaceError(
        'repo_missing',
        `the directory to copy does not exist in ${root}: ${config.repo}`,
        error,
      );
    });
  const release = claim(source, options.runId, config.maxLive);
  let copied = false;
  try {
    // A partial copy is removed by copyDirectory itself; a path that existed is never touched.
    await copyDirectory(source, path, workspaces);
    copied = true;
    await writeMeta(options.stateDir, {
      runId: options.runId,
      mode: 'copy',
      path,
      source,
      daemonPid: process.pid,
      ended: false,
    });
    const cwd = placeIn(source, path, dir, root, options.subdir);
    const finish = once(async () => {
      try {
        const { summary, kept } = await finishCopy(source, path, config.keep);
        await ended(options.stateDir, options.runId, kept);
        return summary;
      } finally {
        release();
      }
    });
    return { mode: 'copy', cwd, path, finish };
  } catch (error) {
    release();
    if (copied) {
      await rm(path, { recursive: true, force: true }).catch(() => {});
      await unlink(join(workspaces, `${options.runId}.json`)).catch(() => {});
    }
    throw asWorkspaceError(error, 'cannot prepare the copy');
  }
}

/** Undoes a worktree whose run never started. */
async function discardWorktree(stateDir: string, runId: string, tree: Worktree): Promise<void> {
  await inTurn(tree.toplevel, async () => {
    await removeWorktree(tree.toplevel, tree.path).catch(() => {});
    await git(tree.toplevel, ['branch', '-D', tree.branch]).catch(() => {});
  });
  await unlink(join(workspacesDir(stateDir), `${runId}.json`)).catch(() => {});
}

function once<T>(task: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= task();
    return result;
  };
}

async function ended(stateDir: string, runId: string, kept: boolean): Promise<void> {
  const file = join(workspacesDir(stateDir), `${runId}.json`);
  if (!kept) {
    await unlink(file).catch(() => {});
    return;
  }
  const meta = await readMeta(file);
  if (meta !== undefined) await writeMeta(stateDir, { ...meta, ended: true });
}

async function readMeta(file: string): Promise<WorkspaceMeta | undefined> {
  try {
    const meta = JSON.parse(await readFile(file, 'utf8')) as WorkspaceMeta;
    return typeof meta.runId === 'string' && typeof meta.path === 'string' ? meta : undefined;
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface PruneReport {
  /** Run ids whose workspace was removed. */
  removed: string[];
  /** Run ids still live, left alone. */
  live: string[];
  /** Branches `agentd/<runId>` kept: they hold work (commits, or what was left uncommitted, now committed). */
  branchesKept: string[];
  /** Branches `agentd/<runId>` deleted with their worktree: nothing was done on them. */
  branchesDeleted: string[];
}

/**
 * Removes one ended (or orphaned) worktree the way a run's end does with `keep: never`: leftovers
 * committed on its branch, the branch deleted only when it holds nothing. False when that failed
 * (the worktree is gone from disk, say); the caller then removes what is left.
 */
async function retireWorktree(meta: WorkspaceMeta, report: PruneReport): Promise<boolean> {
  if (meta.branch === undefined || meta.base === undefined) return false;
  const tree: Worktree = { toplevel: meta.source, path: meta.path, branch: meta.branch, base: meta.base };
  try {
    const { summary } = await inTurn(meta.source, () => finishWorktree(tree, meta.runId, 'never'));
    const kept = summary.head !== summary.base || summary.files > 0;
    (kept ? report.branchesKept : report.branchesDeleted).push(tree.branch);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the workspaces of ended runs (kept ones, and those of a daemon that died) and runs
 * `git worktree prune` in their repositories. A worktree's uncommitted work is committed on its
 * branch first; a branch that holds no work is deleted with it, one that does is kept. A run is live while this process runs it, or while
 * the daemon that made its workspace is alive and has not ended it.
 */
export async function pruneWorkspaces(options: { stateDir: string }): Promise<PruneReport> {
  const workspaces = workspacesDir(options.stateDir);
  const names = await readdir(workspaces).catch(() => [] as string[]);
  const report: PruneReport = { removed: [], live: [], branchesKept: [], branchesDeleted: [] };
  const repositories = new Set<string>();
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const meta = await readMeta(join(workspaces, name));
    if (meta === undefined) continue;
    const running =
      liveRuns.has(meta.runId) || (!meta.ended && meta.daemonPid !== process.pid && pidAlive(meta.daemonPid));
    if (running) {
      report.live.push(meta.runId);
      continue;
    }
    try {
      if (meta.mode === 'worktree') {
        repositories.add(meta.source);
        if (!(await retireWorktree(meta, report)))
          await inTurn(meta.source, () => removeWorktree(meta.source, meta.path)).catch(() => {});
      }
      await rm(meta.path, { recursive: true, force: true });
      await unlink(join(workspaces, name));
    } catch (error) {
      throw asWorkspaceError(error, `cannot remove the workspace ${meta.path}`);
    }
    report.removed.push(meta.runId);
  }
  // A directory without its record: a workspace whose making was cut short.
  for (const name of names.filter((n) => !n.endsWith('.json') && !names.includes(`${n}.json`))) {
    if (liveRuns.has(name)) continue;
    await rm(join(workspaces, name), { recursive: true, force: true }).catch(() => {});
  }
  for (const repository of repositories) await pruneWorktrees(repository).catch(() => {});
  return report;
}
