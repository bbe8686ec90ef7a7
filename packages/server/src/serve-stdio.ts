/** Serves the process's own stdio (origin `stdio`): stdout carries protocol messages only. */
import type { Readable, Writable } from 'node:stream';
import type { ServerCore } from './core-types.js';
import { redirectConsoleToStderr } from './redirect-console.js';
import { type ConnectionHandle, type ServeConnectionOptions, serveStreams } from './serve-connection.js';

export interface ServeStdioOptions extends Omit<ServeConnectionOptions, 'transport'> {
  /** Default process.stdin. */
  stdin?: Readable;
  /** Default process.stdout. */
  stdout?: Writable;
  /**
   * While serving, console.log/info/debug write to stderr so stray prints cannot corrupt the
   * protocol stream. Default true when stdout is process.stdout.
   */
  redirectConsole?: boolean;
}

/**
 * Starts serving stdio and returns the connection's handle (`shutdown(deadlineMs)` for a daemon's
 * drain, `closed` once torn down). The console redirect is undone when it closes.
 */
export function openStdio(core: ServerCore, options: ServeStdioOptions = {}): ConnectionHandle {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const restore =
    (options.redirectConsole ?? stdout === process.stdout) ? redirectConsoleToStderr() : () => {};
  try {
    const handle = serveStreams(
      stdin,
      stdout,
      'stdio',
      core,
      { ...options, transport: 'stdio' },
      {
        // process.stdout must stay usable for the embedder's exit; other outputs are ended.
        graceful: () => {
          if (stdout !== process.stdout) stdout.end();
        },
        abrupt: () => {
          stdin.destroy();
          if (stdout !== process.stdout) stdout.destroy();
        },
      },
    );
    void handle.closed.then(restore);
    return handle;
  } catch (thrown) {
    restore();
    throw thrown;
  }
}

/** Resolves once stdin reached EOF (or failed) and the connection is torn down; the caller then exits. */
export async function serveStdio(core: ServerCore, options: ServeStdioOptions = {}): Promise<void> {
  await openStdio(core, options).closed;
}
