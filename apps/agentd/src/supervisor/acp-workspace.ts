/**
 * Paths an ACP agent names, confined to the run's working directory: no `..`, no absolute path
 * outside it, no symlink that leads out of it (real paths are compared, not spellings).
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk/unstable';

function refuse(path: string, why: string): RequestError {
  return RequestError.invalidParams({ path }, `agentd refused ${JSON.stringify(path)}: ${why}`);
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The real path of `target`, or of its nearest existing ancestor joined with the rest. */
async function realOrNearest(target: string): Promise<string> {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await realpath(current);
      return rest.length === 0 ? real : resolve(real, ...rest.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // A link whose target is missing exists itself: writing through it would create the target.
      if (await exists(current)) throw new Error('a dangling symbolic link');
      const parent = dirname(current);
      if (parent === current) throw error;
      rest.push(current.slice(parent.length).replace(/^[/\\]/, ''));
      current = parent;
    }
  }
}

/**
 * Resolves `path` (absolute, as ACP wants, or relative to `root`) to a real path inside `root`
 * (itself a real path), or throws a JSON-RPC `invalid params` error saying why not.
 */
export async function resolveInside(root: string, path: unknown): Promise<string> {
  if (typeof path !== 'string' || path.length === 0) throw refuse(String(path), 'not a path');
  if (path.includes('\0')) throw refuse(path, 'a NUL byte in the path');
  if (path.split(/[/\\]/).includes('..')) throw refuse(path, '".." is not allowed');
  const target = resolve(root, path);
  if (!inside(root, target)) throw refuse(path, "outside the run's working directory");
  let real: string;
  try {
    real = await realOrNearest(target);
  } catch {
    throw refuse(path, 'cannot be resolved');
  }
  if (!inside(root, real)) throw refuse(path, "a symbolic link leads outside the run's working directory");
  return real;
}
