/** The client side of a unix socket: a minimal dialer for tests and the agentd CLI. */
import net from 'node:net';
import { errnoCode } from './bind-unix.js';
import { unixError } from './local-errors.js';

/** Starts connecting; half-open is allowed (`end()` after the last request, still read the answers). */
function connectUnix(path: string): net.Socket {
  return net.connect({ path, allowHalfOpen: true });
}

/**
 * The dialer: resolves once connected (half-open allowed: `end()` your side after the last request
 * and still read the answers); rejects with LocalError `connect_failed` (ENOENT, ECONNREFUSED, EACCES,
 * timeout). EAGAIN (the listener's accept backlog is full) is retried until the timeout.
 */
export async function dialUnix(path: string, options: { timeoutMs?: number } = {}): Promise<net.Socket> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await attemptConnect(path, Math.max(1, deadline - Date.now()));
    } catch (error) {
      const retry = errnoCode(error) === 'EAGAIN' && Date.now() < deadline;
      if (!retry) {
        const message = error instanceof Error ? error.message : String(error);
        throw unixError('connect_failed', `${path}: ${message}`, { cause: error });
      }
      // Jittered exponential backoff: a burst of dialers must not spin on a full backlog.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(100, 2 ** attempt) * (0.5 + Math.random())),
      );
    }
  }
}

function attemptConnect(path: string, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectUnix(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(unixError('connect_failed', `no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    const onError = (error: Error): void => {
      clearTimeout(timer);
      reject(error);
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
