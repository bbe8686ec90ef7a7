/**
 * One writer per state directory: a lock file holding the owner's pid. A second opener is refused
 * with the first one's pid; a lock whose pid is dead (a daemon killed with `kill -9`) is taken over.
 */
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';

export interface StoreLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Locks this process holds: a lock naming our own pid but not in here is a previous life's (pids repeat in containers). */
const HELD = new Set<string>();

function alive(pid: number, path: string): boolean {
  if (pid === process.pid) return HELD.has(path);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function ownerOf(path: string): Promise<{ pid: number | undefined; text: string } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number.parseInt(text, 10);
  return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined, text };
}

/** Creates the lock with its content in one step (a link of a written file): never seen empty. */
async function create(path: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.write(`${process.pid}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

function refused(path: string, pid: number | undefined): LocalError<AgentdErrorCode> {
  return new LocalError<AgentdErrorCode>(
    'store_locked',
    `the run store is in use by another agentd (pid ${pid ?? 'unknown'}): ${path}. Stop it, or give this one another state directory; if no such process is agentd, delete the lock file`,
  );
}

/** Takes the lock at `path` or throws `store_locked` naming the holder's pid. */
export async function acquireStoreLock(path: string): Promise<StoreLock> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await create(path)) return held(path);
    const owner = await ownerOf(path);
    if (owner === undefined) continue; // released meanwhile: try again
    if (owner.pid !== undefined && alive(owner.pid, path)) throw refused(path, owner.pid);
    // Stale. Move it away first: of two takers, only one moves this file; the other finds the new lock.
    const stale = `${path}.stale-${process.pid}`;
    try {
      await rename(path, stale);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = await ownerOf(stale);
    if (moved !== undefined && moved.text !== owner.text) {
      // We moved a lock someone else had just taken: put it back (link fails if yet another exists).
      await link(stale, path).catch(() => {});
      await unlink(stale).catch(() => {});
      throw refused(path, moved.pid);
    }
    await unlink(stale).catch(() => {});
  }
  const owner = await ownerOf(path);
  throw refused(path, owner?.pid);
}

function held(path: string): StoreLock {
  HELD.add(path);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      HELD.delete(path);
      const owner = await ownerOf(path).catch(() => undefined);
      if (owner?.pid === process.pid) await unlink(path).catch(() => {});
    },
  };
}
