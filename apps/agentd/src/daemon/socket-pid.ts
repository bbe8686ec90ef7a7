/**
 * The pid file beside the daemon's unix socket (`agentd.sock.pid`, 0600): Node cannot read a
 * socket peer's credentials, so this is how a refused start names the daemon holding the socket.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const pidFileOf = (socketPath: string) => `${socketPath}.pid`;

/**
 * Written once this process owns the socket, replacing what a crashed daemon left. Created
 * exclusively (never through a planted symlink); it only informs, so a failure is not fatal.
 */
export function writeSocketPid(socketPath: string): boolean {
  const file = pidFileOf(socketPath);
  try {
    rmSync(file, { force: true });
    writeFileSync(file, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** Removed at close, unless another daemon has taken the socket (and written its own pid) since. */
export function removeSocketPid(socketPath: string): void {
  if (socketPidHolder(socketPath) === process.pid) rmSync(pidFileOf(socketPath), { force: true });
}

/** The live process named in the pid file, if any: a stale file (the process gone) names nobody. */
export function socketPidHolder(socketPath: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFileOf(socketPath), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive but another user's; still the holder.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
