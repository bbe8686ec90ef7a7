/** The directory a spawn may work in: the profile's root or a subdirectory of it, symlinks resolved. */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { workspaceError } from './git-command.js';

/** True when `path` is `root` or inside it (both already real paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The real path of `subdir` (relative to `root`, or absolute) when it resolves inside the real
 * `root`; `workspace_escape` otherwise (`..`, an absolute path elsewhere, a symlink pointing out).
 */
export async function resolveSubdir(
  root: string,
  subdir: string | undefined,
): Promise<{ root: string; dir: string }> {
  const realRoot = await realpath(root).catch((error: unknown) => {
    throw workspaceError('repo_missing', `the profile's directory does not exist: ${root}`, error);
  });
  if (subdir === undefined || subdir === '' || subdir === '.') return { root: realRoot, dir: realRoot };
  const wanted = resolve(realRoot, subdir);
  const outside = () =>
    workspaceError(
      'workspace_escape',
      `the directory ${JSON.stringify(subdir)} is outside the profile's directory ${realRoot}`,
    );
  // Refused before touching the file system when the path itself leaves the root.
  if (!isInside(realRoot, wanted)) throw outside();
  const real = await realpath(wanted).catch((error: unknown) => {
    throw workspaceError(
      'repo_missing',
      `the directory ${JSON.stringify(subdir)} does not exist in ${realRoot}`,
      error,
    );
  });
  if (!isInside(realRoot, real)) throw outside();
  return { root: realRoot, dir: real };
}
