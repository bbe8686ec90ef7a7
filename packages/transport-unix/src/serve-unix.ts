/** Accepts unix socket connections (origin `management`, or `stdio` for a bridge socket) into the server's shared accept loop. */
import { lstat, unlink } from 'node:fs/promises';
import type net from 'node:net';
import {
  type ListenerServer,
  type ServeListenerOptions,
  type ServerCore,
  serveListener,
} from '@agentd/server';
import { boundSocketFile, errnoCode, takeHeldConnections } from './bind-unix.js';

export interface ServeUnixOptions extends ServeListenerOptions {
  /**
   * The peers' origin: `management` (default; the 0600 socket file is the access control), or
   * `stdio` for a socket whose peers speak for an MCP host (a bridge) and get only its trust.
   */
  origin?: 'management' | 'stdio';
}

export interface UnixServer extends ListenerServer {
  readonly listener: net.Server;
}

/**
 * Serves `listener` (from bindUnix, or any listening net.Server) with `core`. Each peer is origin
 * `management` (the 0600 socket file is the access control), transport `unix`, with
 * `attributes.path`. close() also removes the socket file if it is still the one bindUnix bound.
 */
export function serveUnix(
  listener: net.Server,
  core: ServerCore,
  { origin = 'management', ...options }: ServeUnixOptions = {},
): UnixServer {
  const bound = boundSocketFile(listener);
  const address = listener.address();
  const path = bound?.path ?? (typeof address === 'string' ? address : undefined);
  const served = serveListener<net.Socket>(
    {
      transport: 'unix',
      where: { path },
      origin,
      onConnection(accept) {
        listener.on('connection', accept);
        // Peers that connected before we were attached (bindUnix held them): served now, in order.
        for (const socket of takeHeldConnections(listener)) accept(socket);
      },
      onError(report) {
        listener.on('error', report);
      },
      peerAttributes: () => ({ path }),
      stop: () => new Promise<void>((resolve) => listener.close(() => resolve())),
      cleanup: async () => {
        if (bound !== undefined) await unlinkIfOurs(bound);
      },
    },
    core,
    options,
  );
  return {
    listener,
    get connections() {
      return served.connections;
    },
    close: (deadlineMs) => served.close(deadlineMs),
  };
}

/** Removes the socket file only if it is still the one we bound (a successor's socket is left alone). */
async function unlinkIfOurs(file: { path: string; ino: number; dev: number }): Promise<void> {
  try {
    const stats = await lstat(file.path);
    if (stats.isSocket() && stats.ino === file.ino && stats.dev === file.dev) await unlink(file.path);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
}
