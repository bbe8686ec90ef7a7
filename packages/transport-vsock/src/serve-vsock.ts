/** Serves each vsock connection (origin `management`) with the shared NDJSON connection loop. */
import {
  type ConnectionHandle,
  type ServeConnectionOptions,
  type ServerCore,
  serveConnection,
} from '@agentd/server';
import type { VsockListener } from './vsock-listener.js';
import type { VsockSocket } from './vsock-socket.js';

export interface ServeVsockOptions extends Omit<ServeConnectionOptions, 'transport' | 'connectionId'> {
  /** Connections beyond this are closed at accept (and logged). Default 4 096. */
  maxConnections?: number;
  /** Default drain deadline of close(). Default 10 000 ms. */
  closeDeadlineMs?: number;
}

export interface VsockServer {
  readonly listener: VsockListener;
  /** Open connections. */
  readonly connections: number;
  /**
   * Stops accepting, lets in-flight requests finish for up to `deadlineMs`, ends listen streams
   * with their final result, then closes every connection. Idempotent.
   */
  close(deadlineMs?: number): Promise<void>;
}

/** Peer facts for the Handler: the vsock CID and port the connection came from. */
function peerAttributes(socket: VsockSocket): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (socket.remoteCid !== undefined) attributes.cid = socket.remoteCid;
  if (socket.remotePort !== undefined) attributes.port = socket.remotePort;
  return attributes;
}

/** Resolves once everything written to the socket reached the kernel (or the socket is gone). */
function flushed(socket: VsockSocket): Promise<void> {
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

/**
 * Accepts connections from `listener` into `core`. Each peer is origin `management` (the VM
 * boundary is the access control), transport `vsock`, with `attributes.cid`/`attributes.port`
 * (these win over `options.attributes`: they are what the kernel reported). The listener is
 * switched to half-open sockets so answers still go out after a peer's EOF.
 */
export function serveVsock(
  listener: VsockListener,
  core: ServerCore,
  options: ServeVsockOptions = {},
): VsockServer {
  const { maxConnections = 4_096, closeDeadlineMs = 10_000, ...connectionOptions } = options;
  const handles = new Set<ConnectionHandle>();
  const sockets = new Set<VsockSocket>();
  const where = listener.address();
  let closing: Promise<void> | undefined;
  listener.allowHalfOpen = true;
  listener.on('acceptError', (error: Error) =>
    core.logger.warn('vsock accept paused: out of resources', { ...where, error: error.message }),
  );
  listener.on('error', (error: Error) =>
    core.logger.error('vsock listener failed', { ...where, error: error.message }),
  );
  listener.on('connection', (socket: VsockSocket) => {
    if (closing !== undefined) {
      socket.destroy();
      return;
    }
    const attributes = peerAttributes(socket);
    if (sockets.size >= maxConnections) {
      core.logger.warn('vsock connection refused: connection limit reached', {
        ...attributes,
        maxConnections,
      });
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const handle = serveConnection(socket, 'management', core, {
      ...connectionOptions,
      transport: 'vsock',
      attributes: { ...connectionOptions.attributes, ...attributes },
    });
    handles.add(handle);
    void handle.closed.then(() => handles.delete(handle));
  });

  const close = async (deadlineMs: number): Promise<void> => {
    const started = Date.now();
    listener.close();
    await Promise.all([...handles].map((handle) => handle.shutdown(deadlineMs)));
    // Our side has ended: let the last bytes flush (bounded by what is left of the deadline) ...
    await withDeadline(Promise.all([...sockets].map(flushed)), deadlineMs - (Date.now() - started));
    // ... then cut off peers that keep their half open or stopped reading.
    for (const socket of sockets) socket.destroy();
  };

  return {
    listener,
    get connections() {
      return sockets.size;
    },
    close(deadlineMs = closeDeadlineMs) {
      closing ??= close(deadlineMs);
      return closing;
    },
  };
}
