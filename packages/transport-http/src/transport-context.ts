/** State shared by the request handlers of one transport instance. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from './bearer-auth.js';
import type { CorePort, HttpPeer } from './core-port.js';
import type { ResolvedOptions } from './options.js';
import type { SessionStore } from './session-store.js';
import type { SseOptions } from './sse-stream.js';

/** A request being answered; in `exchanges` until answered, so `close()` can end or abort it. */
export interface Exchange {
  /**
   * Shutdown, in two steps: first (`force` false) listen streams are ended with their final
   * result; at the deadline (`force` true) whatever is still open is aborted and cut.
   */
  shutdown(force: boolean): void;
  /** True for an open `subscriptions/listen` stream, which never ends on its own. */
  longLived(): boolean;
}

export interface TransportContext {
  readonly core: CorePort;
  readonly options: ResolvedOptions;
  /** The versions served (the core's, minus legacy when the transport narrows it), newest first. */
  readonly versions: readonly string[];
  readonly sse: SseOptions;
  readonly sessions: SessionStore;
  readonly exchanges: Set<Exchange>;
  closing: boolean;
  nextId(): string;
}

/** Everything known about the caller of one HTTP request after the guards passed. */
export interface Caller {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly principal: Principal | undefined;
  /** CORS headers to add to the answer, when the Origin was allow-listed. */
  readonly corsHeaders: Record<string, string> | undefined;
}

export function makePeer(connectionId: string, caller: Caller): HttpPeer {
  return {
    origin: 'management',
    connectionId,
    transport: 'http',
    attributes: {
      principal: caller.principal?.name,
      filters: caller.principal?.filters,
      remoteAddress: caller.req.socket.remoteAddress,
    },
  };
}
