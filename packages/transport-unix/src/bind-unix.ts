/** Binds a unix socket safely: stale files are cleared only when nobody listens, live ones are never stolen. */
import { chmodSync, existsSync, lstatSync } from 'node:fs';
import { lstat, unlink } from 'node:fs/promises';
import net from 'node:net';
import { LocalError } from '@agentd/rpc-frame';
import { acquireBindLock } from './bind-lock.js';
import { unixError } from './local-errors.js';
import { isNamedPipePath } from './named-pipe.js';

export interface BindUnixOptions {
  /** File mode of the socket. Default 0o600 (owner only): the filesystem is the access control. */
  mode?: number;
  /**
   * listen() backlog (the kernel caps it at net.core.somaxconn). Default 4 096: a unix client
   * whose connect finds the backlog full gets EAGAIN at once, so bursts need room.
   */
  backlog?: number;
  /** How long the liveness probe of an existing socket may take. Default 1 000 ms. */
  probeTimeoutMs?: number;
  /**
   * How long to wait for another process binding the same path at the same moment (see
   * bind-lock.ts). Default: the probe timeout plus 2 000 ms.
   */
  lockWaitMs?: number;
}

/** The file a listener was bound to, so closing removes that file and no other. */
export interface BoundSocketFile {
  readonly path: string;
  readonly ino: number;
  readonly dev: number;
}

const boundFiles = new WeakMap<net.Server, BoundSocketFile>();

export function boundSocketFile(listener: net.Server): BoundSocketFile | undefined {
  return boundFiles.get(listener);
}

/**
 * A listener that holds the connections it accepts until someone serves it: between bindUnix()
 * resolving and serveUnix() attaching its handler, a peer may already connect, and a net.Server
 * without a 'connection' handler would leave that socket unanswered forever (and its close() would
 * wait for it forever). Closing a listener that was never served destroys what it held.
 */
class HoldingServer extends net.Server {
  held: Set<net.Socket> | undefined = new Set();

  constructor() {
    super({ allowHalfOpen: true });
    this.on('connection', this.hold);
  }

  private readonly hold = (socket: net.Socket): void => {
    const held = this.held;
    if (held === undefined) return;
    held.add(socket);
    socket.once('close', () => held.delete(socket));
  };

  /** Hands the held sockets over, in accept order; later connections go to the caller's handler only. */
  release(): net.Socket[] {
    const held = this.held;
    this.held = undefined;
    this.off('connection', this.hold);
    return held === undefined ? [] : [...held];
  }

  override close(callback?: (error?: Error) => void): this {
    for (const socket of this.release()) socket.destroy();
    return super.close(callback);
  }
}

/**
 * The connections a bindUnix listener accepted before it was served (serveUnix takes them when it
 * attaches). Empty for other listeners and on every later call.
 */
export function takeHeldConnections(listener: net.Server): net.Socket[] {
  return listener instanceof HoldingServer ? listener.release() : [];
}

/**
 * Listens on `path` (on Windows, a named pipe `\\.\pipe\NAME`). Errors are LocalErrors: `not_a_socket` (the path exists and is something
 * else), `address_in_use` (a live server answers there), `bind_failed` (anything else).
 * Connections accepted before the listener is served are held for `serveUnix` (none is lost).
 */
export async function bindUnix(path: string, options: BindUnixOptions = {}): Promise<net.Server> {
  const mode = options.mode ?? 0o600;
  const backlog = options.backlog ?? 4_096;
  if (isNamedPipePath(path)) {
    // Windows: the pipe's name is freed with its holder (nothing stale) and has no file mode.
    const server = new HoldingServer();
    await listenWithMode(server, path, mode, backlog);
    return server;
  }
  const server = (await bindFresh(path, mode, backlog)) ?? (await bindLocked(path, mode, backlog, options));
  try {
    // Enforce the exact mode (the umask can only remove bits). Synchronous: two metadata calls
    // once per bind cost less than two thread-pool round trips at startup.
    chmodSync(path, mode);
    const stats = lstatSync(path);
    boundFiles.set(server, { path, ino: stats.ino, dev: stats.dev });
  } catch (error) {
    server.close();
    throw unixError('bind_failed', `cannot secure ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return server;
}

/**
 * Nothing at `path`: listen without the lock. The lock only guards unlinking a stale file, which
 * this path never does; if another process binds first, listen fails and the locked path decides.
 */
async function bindFresh(path: string, mode: number, backlog: number): Promise<HoldingServer | undefined> {
  if (existsSync(path)) return undefined;
  const server = new HoldingServer();
  try {
    await listenWithMode(server, path, mode, backlog);
    return server;
  } catch (error) {
    server.close();
    if (error instanceof LocalError && error.code === 'address_in_use') return undefined;
    throw error;
  }
}

/** Probe, unlink and listen as one step across processes (see bind-lock.ts). */
async function bindLocked(
  path: string,
  mode: number,
  backlog: number,
  options: BindUnixOptions,
): Promise<HoldingServer> {
  const probeTimeoutMs = options.probeTimeoutMs ?? 1_000;
  // Two daemons starting together on a stale socket must not both unlink-and-listen (the later
  // one would orphan the first's socket).
  const release = await acquireBindLock(path, options.lockWaitMs ?? probeTimeoutMs + 2_000);
  const server = new HoldingServer();
  try {
    await clearStale(path, probeTimeoutMs);
    await listenWithMode(server, path, mode, backlog);
    return server;
  } finally {
    await release();
  }
}

async function clearStale(path: string, probeTimeoutMs: number): Promise<void> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw unixError('bind_failed', `cannot inspect ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!stats.isSocket()) {
    throw unixError('not_a_socket', `${path} exists and is not a socket; refusing to replace it`);
  }
  const state = await probe(path, probeTimeoutMs);
  if (state === 'live') {
    throw unixError('address_in_use', `${path}: another server is listening on this socket`);
  }
  if (state === 'stale') {
    try {
      await unlink(path);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') {
        throw unixError('bind_failed', `cannot remove stale socket ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
  }
}

/** 'live' when something accepts, 'stale' when the file refuses connections, 'gone' when it vanished. */
function probe(path: string, timeoutMs: number): Promise<'live' | 'stale' | 'gone'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(path);
    const timer = setTimeout(() => {
      // A server too busy to accept within the timeout is still a server: never steal it.
      socket.destroy();
      resolve('live');
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('live');
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      const code = errnoCode(error);
      if (code === 'ECONNREFUSED') resolve('stale');
      else if (code === 'ENOENT') resolve('gone');
      else reject(unixError('bind_failed', `cannot probe ${path}: ${error.message}`, { cause: error }));
    });
  });
}

function listenWithMode(server: net.Server, path: string, mode: number, backlog: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      const code = errnoCode(error);
      reject(
        code === 'EADDRINUSE'
          ? unixError('address_in_use', `${path}: another server bound this path meanwhile`, {
              cause: error,
            })
          : unixError('bind_failed', `cannot listen on ${path}: ${error.message}`, { cause: error }),
      );
    };
    server.once('error', onError);
    const restore = tightenUmask(mode);
    try {
      // The bind happens synchronously inside listen(), so the socket is born with the tight umask.
      server.listen({ path, backlog }, () => {
        server.off('error', onError);
        resolve();
      });
    } finally {
      restore();
    }
  });
}

/** Sets a umask that leaves at most `mode`'s bits, so no other user can connect before chmod. */
function tightenUmask(mode: number): () => void {
  try {
    const previous = process.umask(~mode & 0o777);
    return () => process.umask(previous);
  } catch {
    return () => {}; // worker threads cannot change the umask; the chmod after listen still applies
  }
}

export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}
