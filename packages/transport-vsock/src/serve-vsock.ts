/** Serves each vsock connection (origin `management`) with the server's shared accept loop. */
import {
  type ListenerServer,
  type ServeListenerOptions,
  type ServerCore,
  serveListener,
} from '@agentd/server';
import type { VsockListener } from './vsock-listener.js';
import type { VsockSocket } from './vsock-socket.js';

export type ServeVsockOptions = ServeListenerOptions;

export interface VsockServer extends ListenerServer {
  readonly listener: VsockListener;
}

/** Peer facts for the Handler: the vsock CID and port the connection came from. */
function peerAttributes(socket: VsockSocket): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (socket.remoteCid !== undefined) attributes.cid = socket.remoteCid;
  if (socket.remotePort !== undefined) attributes.port = socket.remotePort;
  return attributes;
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
  const where = listener.address();
  listener.allowHalfOpen = true;
  listener.on('acceptError', (error: Error) =>
    core.logger.warn('vsock accept paused: out of resources', { ...where, error: error.message }),
  );
  const served = serveListener<VsockSocket>(
    {
      transport: 'vsock',
      where: { ...where },
      onConnection: (accept) => listener.on('connection', accept),
      onError: (report) => listener.on('error', report),
      peerAttributes,
      stop: async () => listener.close(),
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
