/**
 * The bind lock on real sockets, in both of its kinds: the abstract name Linux cleans up itself,
 * and the socket file used where there is no such namespace (macOS, the BSDs; taken here on Linux
 * through the `platform` argument), including the file a crashed holder leaves behind.
 */
import { link, mkdtemp, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireBindLock, bindLockName } from './bind-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentd-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Resolves `true` if `promise` settles within `ms`, else `false`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  const settled = await Promise.race([promise.then(() => true), late]);
  clearTimeout(timer);
  return settled;
}

const kinds: Array<[string, NodeJS.Platform]> = [
  ['abstract socket (Linux)', 'linux'],
  ['socket file (macOS and others)', 'darwin'],
];

describe.runIf(process.platform === 'linux').each(kinds)('the bind lock as a %s', (_label, platform) => {
  it('lets one process at a time bind a path; the next gets it once the first releases', async () => {
    const path = join(dir, 'agentd.sock');
    const first = await acquireBindLock(path, 30_000, platform);
    const second = acquireBindLock(path, 30_000, platform);
    expect(await settlesWithin(second, 300)).toBe(false);
    await first();
    const release = await second;
    // The second now holds it: a third waits in turn.
    const third = acquireBindLock(path, 30_000, platform);
    expect(await settlesWithin(third, 300)).toBe(false);
    await release();
    await (await third)();
  });

  it('locks each path apart, whatever its spelling', async () => {
    const release = await acquireBindLock(join(dir, 'a.sock'), 30_000, platform);
    await (await acquireBindLock(join(dir, 'b.sock'), 30_000, platform))();
    // The same file through a symlinked directory: the same lock.
    await symlink(dir, join(dir, 'link'));
    const sameFile = acquireBindLock(join(dir, 'link', 'a.sock'), 30_000, platform);
    expect(await settlesWithin(sameFile, 300)).toBe(false);
    await release();
    await (await sameFile)();
  });

  it('proceeds without the lock after waitMs when the holder keeps it', async () => {
    const path = join(dir, 'agentd.sock');
    const held = await acquireBindLock(path, 30_000, platform);
    const started = Date.now();
    const unlocked = await acquireBindLock(path, 200, platform);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    await unlocked();
    await held();
  });
});

describe.runIf(process.platform === 'linux')('the socket-file bind lock after a crashed holder', () => {
  it('replaces the stale lock file at once instead of waiting out waitMs', async () => {
    const path = join(dir, 'agentd.sock');
    const { address, selfCleaning } = await bindLockName(path, 'darwin');
    expect(selfCleaning).toBe(false);
    // What a killed holder leaves: the socket file with nobody listening on it.
    const scratch = join(dir, 'scratch.sock');
    const server = net.createServer();
    await new Promise<void>((done) => server.listen(scratch, done));
    await link(scratch, address);
    await new Promise<void>((done) => server.close(() => done()));
    try {
      // A minute of waitMs: only the stale check can make this settle within the test's timeout.
      const release = await acquireBindLock(path, 60_000, 'darwin');
      const next = acquireBindLock(path, 30_000, 'darwin');
      expect(await settlesWithin(next, 300)).toBe(false);
      await release();
      await (await next)();
    } finally {
      await rm(address, { force: true });
    }
  }, 20_000);
});
