/** A git worktree per run: made on a new branch from HEAD, summarised and cleaned up at its end. */
import { rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asWorkspaceError, GitFailure, git, nearlyFull, workspaceError } from './git-command.js';
import type { WorkspaceConfig } from './workspace-config.js';

export interface WorktreeSummary {
  mode: 'worktree';
  branch: string;
  /** The commit the branch started from (the repository's HEAD when the run started). */
  base: string;
  /** The branch's last commit when the run ended (uncommitted work committed first). */
  head: string;
  /** `base..head`. */
  commits: string;
  files: number;
  insertions: number;
  deletions: number;
  /** Changed paths, at most 100. */
  paths: string[];
  /** The worktree's path, when it was kept. */
  path?: string;
}

export interface Worktree {
  toplevel: string;
  path: string;
  branch: string;
  base: string;
}

/** The repository's top level; `repo_missing` or `not_a_git_repo` when there is none. */
export async function repositoryOf(repo: string): Promise<string> {
  try {
    if (!(await stat(repo)).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw workspaceError('repo_missing', `the workspace repository does not exist: ${repo}`, error);
  }
  try {
    return (await git(repo, ['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    if (
      error instanceof GitFailure &&
      /not a git repository|must be run in a work tree/i.test(error.stderr)
    ) {
      throw workspaceError('not_a_git_repo', `not a git repository: ${repo}`, error);
    }
    throw asWorkspaceError(error, `cannot read the repository ${repo}`);
  }
}

export async function addWorktree(toplevel: string, path: string, runId: string): Promise<Worktree> {
  const branch = `agentd/${runId}`;
  let base: string;
  try {
    base = (await git(toplevel, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  } catch (error) {
    throw workspaceError(
      'workspace_failed',
      `the repository ${toplevel} has no commit to start a worktree from`,
      error,
    );
  }
  const exists = await git(toplevel, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], [0, 1]);
  if (exists.trim() !== '')
    throw workspaceError('branch_exists', `the branch ${branch} already exists in ${toplevel}`);
  try {
    await git(toplevel, ['worktree', 'add', '--quiet', '-b', branch, path, base]);
  } catch (error) {
    if (error instanceof GitFailure && /already exists/.test(error.stderr) && /branch/i.test(error.stderr)) {
      throw workspaceError('branch_exists', `the branch ${branch} already exists in ${toplevel}`, error);
    }
    // git leaves the branch and a half-made worktree behind when the checkout fails.
    await rm(path, { recursive: true, force: true }).catch(() => {});
    await git(toplevel, ['worktree', 'prune']).catch(() => {});
    await git(toplevel, ['branch', '-D', branch]).catch(() => {});
    // git says only "unable to write file" when the disk fills during the checkout.
    if (await nearlyFull(dirname(path))) {
      throw workspaceError(
        'disk_full',
        `cannot add a worktree of ${toplevel}: the disk of ${dirname(path)} is full`,
        error,
      );
    }
    throw asWorkspaceError(error, `cannot add a worktree of ${toplevel}`);
  }
  return { toplevel, path, branch, base };
}

/** Commits what the run left uncommitted on its branch (so `base..head` holds all of it). */
async function commitLeftovers(tree: Worktree, runId: string): Promise<void> {
  if ((await git(tree.path, ['status', '--porcelain'])).trim() === '') return;
  await git(tree.path, ['add', '-A']);
  const identity = await git(tree.path, ['var', 'GIT_COMMITTER_IDENT']).then(
    () => [],
    () => ['-c', 'user.name=agentd', '-c', 'user.email=agentd@localhost'],
  );
  await git(tree.path, [
    ...identity,
    '-c',
    'commit.gpgsign=false',
    'commit',
    '--quiet',
    '--no-verify',
    '-m',
    `agentd: work of ${runId} left uncommitted`,
  ]);
}

function summarise(numstat: string): Pick<WorktreeSummary, 'files' | 'insertions' | 'deletions' | 'paths'> {
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  const paths: string[] = [];
  for (const record of numstat.split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(record.replace(/^\n/, ''));
    if (match === null) continue;
    files++;
    insertions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
    if (paths.length < 100) paths.push(match[3] as string);
  }
  return { files, insertions, deletions, paths };
}

/** Summarises the run's work (committing leftovers first), then keeps or removes the worktree per `keep`. */
export async function finishWorktree(
  tree: Worktree,
  runId: string,
  keep: WorkspaceConfig['keep'],
): Promise<{ summary: WorktreeSummary; kept: boolean }> {
  try {
    await commitLeftovers(tree, runId);
    const head = (await git(tree.path, ['rev-parse', 'HEAD'])).trim();
    const numstat = await git(tree.toplevel, ['diff', '--numstat', '--no-renames', '-z', tree.base, head]);
    const diff = summarise(numstat);
    const changed = head !== tree.base || diff.files > 0;
    const kept = keep === 'always' || (keep === 'changed' && changed);
    if (!kept) {
      await git(tree.toplevel, ['worktree', 'remove', '--force', tree.path]);
      // An unchanged branch says nothing: gone with its worktree. A changed one holds the work.
      if (!changed) await git(tree.toplevel, ['branch', '-D', tree.branch]);
    }
    const summary: WorktreeSummary = {
      mode: 'worktree',
      branch: tree.branch,
      base: tree.base,
      head,
      commits: `${tree.base}..${head}`,
      ...diff,
    };
    if (kept) summary.path = tree.path;
    return { summary, kept };
  } catch (error) {
    throw asWorkspaceError(error, `cannot finish the worktree ${tree.path}`);
  }
}

export async function removeWorktree(toplevel: string, path: string): Promise<void> {
  await git(toplevel, ['worktree', 'remove', '--force', path]);
}

export async function pruneWorktrees(toplevel: string): Promise<void> {
  await git(toplevel, ['worktree', 'prune']);
}
