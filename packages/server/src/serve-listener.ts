/**
 * The accept loop every socket transport shares: connection tracking and the limit, one
 * serveConnection per peer, and close() with a flush deadline. A transport supplies only its
 * listener-specific bits (how sockets arrive, who the peer is, how the listener stops).
 */
import type { Duplex } from 'node:stream';
import type { ServerCore } from './core-types.js';
import type { PeerOrigin } from './handler.js';
import { errorFields } from './logger.js';
import { type ConnectionHandle, type ServeConnectionOptions, serveConnection } from './serve-connection.js';

const DEFAULT_MAX_CONNECTIONS = 4_096;
const DEFAULT_CLOSE_DEADLINE_MS = 10_000;

export interface ServeListenerOptions extends Omit<ServeConnectionOptions, 'transport' | 'connectionId'> {
  /** Connections beyond this are closed at accept (and logged). Default 4 096. */
  maxConnections?: number;
  /** Default drain deadline of close(). Default 10 000 ms. */
  closeDeadlineMs?: number;
}

/** A socket transport's listener, as the accept loop sees it. */
export interface ListenerSource<S extends Duplex> {
  /** Peer.transport and the first word of log lines: `unix`, `vsock`, … */
  readonly transport: string;
  /** Where the listener listens, for log lines (`{ path }`, `{ cid, port }`). */
  readonly where: Readonly<Record<string, unknown>>;
  /** Starts delivering accepted sockets (including any that arrived before this call). */
  onConnection(accept: (socket: S) => void): void;
  /** Listener failures; the loop logs them as errors. */
  onError(report: (error: Error) => void): void;
  /**
   * Who the listener's peers are (default `management`: the listener is the access control). A
   * listener may only hand out less trust, e.g. `stdio` for a bridge that speaks for an MCP host.
   */
  readonly origin?: PeerOrigin;
  /** The peer's identity as the kernel reported it; wins over `options.attributes`. */
  peerAttributes(socket: S): Record<string, unknown>;
  /** Stops accepting; resolves once the listener is closed (after every connection is gone). */
  stop(): Promise<void>;
  /** Runs last in close(), after the listener stopped (unix: removes the socket file). */
  cleanup?(): Promise<void>;
}

export interface ListenerServer {
  /** Open connections. */
  readonly connections: number;
  /**
   * Stops accepting, lets in-flight requests finish for up to `deadlineMs`, ends listen streams
   * with their final result, lets the last bytes flush within what is left of the deadline, then
   * closes every connection. Idempotent.
   */
  close(deadlineMs?: number): Promise<void>;
}

/** Accepts every connection of `source` into `core`, origin `source.origin` (default `management`: the listener is the access control). */
export function serveListener<S extends Duplex>(
  source: ListenerSource<S>,
  core: ServerCore,
  options: ServeListenerOptions = {},
): ListenerServer {
  const {
    maxConnections = DEFAULT_MAX_CONNECTIONS,
    closeDeadlineMs = DEFAULT_CLOSE_DEADLINE_MS,
    ...connectionOptions
  } = options;
  const { transport, where } = source;
  const sockets = new Set<S>();
  const handles = new Set<ConnectionHandle>();
  let closing: Promise<void> | undefined;

  source.onError((error) =>
    core.logger.error(`${transport} listener error`, { ...where, ...errorFields(error) }),
  );
  source.onConnection((socket) => {
    if (closing !== undefined || socket.destroyed) {
      socket.destroy();
      return;
    }
    const attributes = source.peerAttributes(socket);
    if (sockets.size >= maxConnections) {
      core.logger.warn(`${transport} connection refused: connection limit reached`, {
        ...where,
        ...attributes,
        maxConnections,
      });
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const handle = serveConnection(socket, source.origin ?? 'management', core, {
      ...connectionOptions,
      transport,
      attributes: { ...connectionOptions.attributes, ...attributes },
    });
    handles.add(handle);
    void handle.closed.then(() => handles.delete(handle));
  });

  const close = async (deadlineMs: number): Promise<void> => {
    const started = Date.now();
    const stopped = source.stop();
    await Promise.all([...handles].map((handle) => handle.shutdown(deadlineMs)));
    // Our side has ended: let the last bytes flush (bounded by what is left of the deadline) ...
    await withDeadline(Promise.all([...sockets].map(flushed)), deadlineMs - (Date.now() - started));
    // ... then cut off peers that keep their half open or stopped reading.
    const open = [...sockets];
    for (const socket of open) socket.destroy();
    // `connections` counts a socket until its `close` event: wait for those, so it reads 0 after close().
    await Promise.all(
      open.map((socket) =>
        sockets.has(socket) ? new Promise((resolve) => socket.once('close', resolve)) : undefined,
      ),
    );
    await stopped;
    await source.cleanup?.();
  };

  return {
    get connections() {
      return sockets.size;
    },
    close(deadlineMs = closeDeadlineMs) {
      closing ??= close(deadlineMs);
      return closing;
    },
  };
}

/** Resolves once everything written to the socket reached the kernel (or the socket is gone). */
function flushed(socket: Duplex): Promise<void> {
  if (socket.writableFinished || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('finish', resolve);
    socket.once('close', resolve);
  });
}

async function withDeadline(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}
