/** A real full disk for tests: a small tmpfs, where this user may mount one (root on Linux). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function canMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = join(tmpdir(), `agentd-mount-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    rmdirSync(probe);
  }
}

/** Mounts a tmpfs of `size` (`128k`) at the existing directory `path` for `body`, then lazily unmounts it. */
export async function withTinyDisk<T>(path: string, size: string, body: () => Promise<T>): Promise<T> {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]);
  try {
    return await body();
  } finally {
    // Lazy: a failed assertion may leave a file open; the mount must not outlive the test anyway.
    execFileSync('umount', ['-l', path]);
  }
}
