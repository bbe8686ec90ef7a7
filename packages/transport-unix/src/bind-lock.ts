/**
 * A cross-process lock around "probe, unlink a stale socket, listen" on one socket path.
 *
 * Why an abstract unix socket: binding a name is atomic (the second binder gets EADDRINUSE), and
 * the kernel releases it the moment the holder's descriptor closes, including when the holder
 * crashes or is killed: there is never a stale lock to clean up, which is the very problem being
 * solved. A lock *file* (O_EXCL) survives a crash and would need the same unsafe stale check; flock
 * and fcntl locks are not reachable from Node without a native addon.
 *
 * Limits, by design: abstract names exist on Linux only (elsewhere binding proceeds without the
 * lock, as before), and they are per network namespace. The name is shared by every user of the
 * namespace, so another local user could hold it; a holder keeps it only for one bind (bounded by
 * the probe timeout), so after `waitMs` the bind proceeds without it rather than be held hostage.
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import net from 'node:net';
import { basename, dirname, resolve } from 'node:path';

type ReleaseLock = () => Promise<void>;

const NO_LOCK: ReleaseLock = async () => {};

/** The abstract socket name guarding `path` (the same for every spelling of the same file). */
async function bindLockName(path: string): Promise<string> {
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
  return `\0agentd-bind-lock/${digest.slice(0, 40)}`;
}

/** Takes the lock for `path`, waiting up to `waitMs` for another process's bind to finish. */
export async function acquireBindLock(path: string, waitMs: number): Promise<ReleaseLock> {
  if (process.platform !== 'linux') return NO_LOCK;
  const name = await bindLockName(path);
  const deadline = Date.now() + waitMs;
  let delay = 2;
  for (;;) {
    const outcome = await tryListen(name);
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
