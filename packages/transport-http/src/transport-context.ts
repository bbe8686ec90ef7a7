/** State shared by the request handlers of one endpoint, and the caller of one request. */
import type { LifecycleOptions } from '@agentd/lifecycle';
import type { Peer, ServerCore, TraceCarrier } from '@agentd/server';
import type { Principal } from './bearer-auth.js';
import type { HeaderReader, HttpOutgoing } from './http-io.js';
import type { ResolvedOptions } from './options.js';
import type { SessionStore } from './session-store.js';
import type { SseOptions } from './sse-stream.js';

/** A request being answered; in `exchanges` until answered, so `close()` can end or abort it. */
interface Exchange {
  /**
   * Shutdown, in two steps: first (`force` false) listen streams are ended with their final
   * result; at the deadline (`force` true) whatever is still open is aborted and cut.
   */
  shutdown(force: boolean): void;
  /** True for an open `subscriptions/listen` stream, which never ends on its own. */
  longLived(): boolean;
}

export interface TransportContext {
  readonly core: ServerCore;
  readonly options: ResolvedOptions;
  /** The core's lifecycle options, narrowed to its modern versions when the transport serves no legacy. */
  readonly lifecycle: LifecycleOptions;
  readonly sse: SseOptions;
  readonly sessions: SessionStore;
  readonly exchanges: Set<Exchange>;
  closing: boolean;
  nextId(): string;
}

/** Everything known about the caller of one HTTP request after the guards passed. */
export interface Caller {
  readonly headers: HeaderReader;
  readonly out: HttpOutgoing;
  readonly remoteAddress: string | undefined;
  /** Undefined: the caller presented no credentials (auth is off). */
  readonly principal: Principal | undefined;
  /** CORS headers to add to the answer, when the Origin was allow-listed. */
  readonly corsHeaders: Record<string, string> | undefined;
  /** The `WWW-Authenticate` value of a 403 insufficient-scope answer needing `scopes`. */
  scopeChallenge(scopes: readonly string[]): string;
}

/** The header's value, or undefined when absent. */
export function headerOf(caller: Caller, name: string): string | undefined {
  return caller.headers.get(name) ?? undefined;
}

/** The W3C trace headers, for the core's request span when the request's `_meta` has none. */
export function traceCarrierOf(caller: Caller): TraceCarrier | undefined {
  const traceparent = headerOf(caller, 'traceparent');
  if (traceparent === undefined) return undefined;
  const tracestate = headerOf(caller, 'tracestate');
  const baggage = headerOf(caller, 'baggage');
  return {
    traceparent,
    ...(tracestate !== undefined && { tracestate }),
    ...(baggage !== undefined && { baggage }),
  };
}

/** Authenticated callers are management peers (the embedder narrows by `peer.auth`); others are anonymous. */
export function makePeer(connectionId: string, caller: Caller, sessionId?: string): Peer {
  const principal = caller.principal;
  const session = sessionId === undefined ? {} : { sessionId };
  if (principal === undefined) {
    return {
      origin: 'anonymous',
      connectionId,
      transport: 'http',
      attributes: {
        principal: undefined,
        filters: undefined,
        remoteAddress: caller.remoteAddress,
        ...session,
      },
    };
  }
  return {
    origin: 'management',
    connectionId,
    transport: 'http',
    auth: principal.auth,
    attributes: {
      principal: principal.auth.principal,
      filters: principal.filters,
      remoteAddress: caller.remoteAddress,
      ...session,
    },
  };
}
