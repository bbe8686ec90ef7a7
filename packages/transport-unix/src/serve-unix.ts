/** Accepts unix socket connections (origin `management`) into the shared connection loop. */
import { lstat, unlink } from 'node:fs/promises';
import type net from 'node:net';
import {
  type ConnectionHandle,
  type ServeConnectionOptions,
  type ServerCore,
  serveConnection,
} from '@agentd/server';
import { boundSocketFile, errnoCode, takeHeldConnections } from './bind-unix.js';

export interface ServeUnixOptions extends Omit<ServeConnectionOptions, 'transport' | 'connectionId'> {
  /** Connections beyond this are refused at accept. Default 4 096. */
  maxConnections?: number;
  /** Default drain deadline of close(). Default 10 000 ms. */
  closeDeadlineMs?: number;
}

export interface UnixServer {
  readonly listener: net.Server;
  /** Open connections. */
  readonly connections: number;
  /**
   * Stops accepting, lets in-flight requests finish for up to `deadlineMs`, ends listen streams
   * with their final result, closes every connection, and removes the socket file.
   */
  close(deadlineMs?: number): Promise<void>;
}

export function serveUnix(
  listener: net.Server,
  core: ServerCore,
  options: ServeUnixOptions = {},
): UnixServer {
  const handles = new Set<ConnectionHandle>();
  const sockets = new Set<net.Socket>();
  const bound = boundSocketFile(listener);
  const address = listener.address();
  const path = bound?.path ?? (typeof address === 'string' ? address : undefined);
  let closing: Promise<void> | undefined;
  listener.maxConnections = options.maxConnections ?? 4_096;
  listener.on('drop', () => core.logger.warn('unix connection refused: connection limit reached', { path }));
  listener.on('error', (error) => core.logger.error('unix listener error', { path, error: error.message }));
  const accept = (socket: net.Socket): void => {
    if (closing !== undefined || socket.destroyed) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const handle = serveConnection(socket, 'management', core, {
      ...options,
      transport: 'unix',
      attributes: { path, ...options.attributes },
    });
    handles.add(handle);
    void handle.closed.then(() => handles.delete(handle));
  };
  listener.on('connection', accept);
  // Peers that connected before we were attached (bindUnix held them): served now, in order.
  for (const socket of takeHeldConnections(listener)) accept(socket);

  const close = async (deadlineMs: number): Promise<void> => {
    const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
    await Promise.all([...handles].map((handle) => handle.shutdown(deadlineMs)));
    // Peers that keep their half open after our end are cut off now.
    for (const socket of sockets) socket.destroy();
    await stopped;
    if (bound !== undefined) await unlinkIfOurs(bound);
  };

  return {
    listener,
    get connections() {
      return handles.size;
    },
    close(deadlineMs = options.closeDeadlineMs ?? 10_000) {
      closing ??= close(deadlineMs);
      return closing;
    },
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
