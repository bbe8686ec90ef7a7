/**
 * A cross-process lock around "probe, unlink a stale socket, listen" on one socket path.
 *
 * The lock is a listening socket whose name is derived from the path, because binding a name is
 * atomic (the second binder gets EADDRINUSE). Where the platform has one, the name lives in a
 * namespace the OS cleans up itself the moment the holder's descriptor closes, crash included, so
 * there is never a stale lock, which is the very problem being solved:
 * - Linux: an abstract unix socket (per network namespace, shared by every user of it);
 * - Windows: a named pipe (`\\.\pipe\...`).
 * Elsewhere (macOS, the BSDs) the lock is a unix socket *file* in the temp dir (per user on
 * macOS). A crashed holder leaves that file behind, but a dead one refuses connections while a
 * live holder accepts them, so a refused probe marks it stale and it is replaced. Two processes
 * judging the same stale file at the same instant can still both replace it: that window exists
 * only right after a holder crashed, and is far smaller than binding with no lock at all. (flock
 * and fcntl locks are not reachable from Node without a native addon.)
 *
 * A holder keeps the lock only for one bind (bounded by the probe timeout), so after `waitMs` the
 * bind proceeds without it rather than be held hostage by another local user holding the name;
 * a platform or sandbox that forbids the lock's socket also binds without it.
 */
import { createHash } from 'node:crypto';
import { realpath, unlink } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

type ReleaseLock = () => Promise<void>;

const NO_LOCK: ReleaseLock = async () => {};

interface LockName {
  /** What to listen on. */
  address: string;
  /** True when the OS drops the name with its holder; false for a socket file that can go stale. */
  selfCleaning: boolean;
}

/** The lock name guarding `path` on `platform` (the same for every spelling of the same file). */
export async function bindLockName(path: string, platform: NodeJS.Platform): Promise<LockName> {
  const absolute = resolve(path);
  let directory = dirname(absolute);
  try {
    directory = await realpath(directory);
  } catch {
    // A missing directory makes listen fail with its own error; lock the path as given.
  }
  const digest = createHash('sha256')
    .update(`${directory}/${basename(absolute)}`)
    .digest('hex');
  if (platform === 'linux')
    return { address: `\0agentd-bind-lock/${digest.slice(0, 40)}`, selfCleaning: true };
  if (platform === 'win32')
    return { address: `\\\\.\\pipe\\agentd-bind-lock-${digest.slice(0, 40)}`, selfCleaning: true };
  // Short: a socket path is limited to about 104 bytes on macOS, and its temp dir is long.
  return { address: join(tmpdir(), `agentd-bind-lock-${digest.slice(0, 24)}.sock`), selfCleaning: false };
}

/**
 * Takes the lock for `path`, waiting up to `waitMs` for another process's bind to finish.
 * `platform` picks the kind of lock (tests take the socket-file kind on Linux).
 */
export async function acquireBindLock(
  path: string,
  waitMs: number,
  platform: NodeJS.Platform = process.platform,
): Promise<ReleaseLock> {
  const name = await bindLockName(path, platform);
  const deadline = Date.now() + waitMs;
  let delay = 2;
  for (;;) {
    const outcome = await tryListen(name.address);
    if (outcome === 'busy' && !name.selfCleaning && (await isStale(name.address))) {
      // A crashed holder's file: remove it and try again at once (if it cannot be removed, as
      // another user's in a shared temp dir, wait like for a live holder).
      const removed = await unlink(name.address).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
      );
      if (removed) continue;
    }
    if (outcome !== 'busy') return outcome;
    if (Date.now() >= deadline) return NO_LOCK;
    await new Promise((done) => setTimeout(done, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 50);
  }
}

function tryListen(name: string): Promise<ReleaseLock | 'busy'> {
  return new Promise((done) => {
    const lock = net.createServer();
    // Nobody is meant to connect; anything that does is turned away.
    lock.on('connection', (socket) => socket.destroy());
    lock.once('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      // Anything but "taken" (an exotic sandbox forbidding abstract sockets): proceed unlocked.
      done(code === 'EADDRINUSE' ? 'busy' : NO_LOCK);
    });
    lock.listen(name, () => {
      lock.unref();
      done(() => new Promise<void>((closed) => lock.close(() => closed())));
    });
  });
}

/** True when nothing accepts on the socket file at `address` (its holder is gone). */
function isStale(address: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = net.connect(address);
    probe.once('connect', () => {
      probe.destroy();
      done(false);
    });
    probe.once('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      // Refused: a socket file with no listener. Gone: released meanwhile; either way, retry.
      done(code === 'ECONNREFUSED' || code === 'ENOENT');
    });
  });
}
