/** A copy of a directory per run (work outside git), with a summary of what the run changed in it. */
import { cp, mkdir, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { asWorkspaceError, git } from './git-command.js';
import type { WorkspaceConfig } from './workspace-config.js';
import { isInside } from './workspace-root.js';

export interface CopySummary {
  mode: 'copy';
  /** The directory that was copied. */
  source: string;
  /** Changed, added and removed files; absent when git (which counts them) is not installed. */
  files?: number;
  insertions?: number;
  deletions?: number;
  /** Changed paths (relative), at most 100. */
  paths?: string[];
  /** The copy's path, when it was kept. */
  path?: string;
}

export async function copyDirectory(source: string, path: string, skip: string): Promise<void> {
  try {
    // Made first, alone: a path that exists already is refused, and never removed.
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    throw asWorkspaceError(error, `cannot make the copy ${path}`);
  }
  try {
    await cp(source, path, {
      recursive: true,
      preserveTimestamps: true,
      verbatimSymlinks: true,
      // The destination is the directory just made, empty: nothing in it to overwrite. (Node 24's
      // cp refuses an existing top-level destination under errorOnExist; mkdir above is the guard.)
      force: false,
      // The state directory may live inside the copied one: never copy workspaces into themselves.
      filter: (from) => !isInside(skip, from),
    });
  } catch (error) {
    await rm(path, { recursive: true, force: true }).catch(() => {});
    throw asWorkspaceError(error, `cannot copy ${source}`);
  }
}

/** Counts lines with `git diff --no-index` between the source (as it is now) and the copy. */
async function diffSummary(
  source: string,
  path: string,
): Promise<Omit<CopySummary, 'mode' | 'source' | 'path'>> {
  let out: string;
  try {
    out = await git(path, ['diff', '--no-index', '--numstat', '--no-renames', '-z', source, path], [0, 1]);
  } catch {
    return {};
  }
  // Records: "ins\tdel\t" NUL old-path NUL new-path NUL (either side /dev/null when added or removed).
  const tokens = out.split('\0');
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  const paths: string[] = [];
  for (let i = 0; i + 2 < tokens.length; i += 3) {
    const match = /^(\d+|-)\t(\d+|-)\t$/.exec(tokens[i] as string);
    if (match === null) break;
    files++;
    insertions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
    const after = tokens[i + 2] as string;
    const changed = after === '/dev/null' ? relative(source, tokens[i + 1] as string) : relative(path, after);
    if (paths.length < 100) paths.push(changed);
  }
  return { files, insertions, deletions, paths };
}

export async function finishCopy(
  source: string,
  path: string,
  keep: WorkspaceConfig['keep'],
): Promise<{ summary: CopySummary; kept: boolean }> {
  const diff = await diffSummary(source, path);
  // Without git the change is unknown: `changed` keeps the copy rather than lose work.
  const changed = diff.files === undefined || diff.files > 0;
  const kept = keep === 'always' || (keep === 'changed' && changed);
  if (!kept) {
    try {
      await rm(path, { recursive: true, force: true });
    } catch (error) {
      throw asWorkspaceError(error, `cannot remove the copy ${path}`);
    }
  }
  const summary: CopySummary = { mode: 'copy', source, ...diff };
  if (kept) summary.path = path;
  return { summary, kept };
}
