/** One MCP endpoint's state and rules, shared by every host adapter (fetch, Node, `serveHttp`). */

import { hostPolicy } from '@agentd/lifecycle';
import { errorFields, type Logger } from '@agentd/rpc-frame';
import type { ServerCore } from '@agentd/server';
import { type AuthGate, createAuthGate } from './auth-gate.js';
import type { EventStore } from './event-store.js';
import type { HttpIncoming, HttpOutgoing } from './http-io.js';
import { type McpHttpOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { ownsPath, routeRequest } from './route-request.js';
import { servedVersions } from './served-versions.js';
import { SessionStore } from './session-store.js';
import type { TransportContext } from './transport-context.js';

export interface McpEndpoint {
  readonly options: ResolvedOptions;
  /** True when some request must authenticate (tokens or OAuth configured). */
  readonly authenticated: boolean;
  /** The paths this endpoint answers: its own and, with OAuth, the RFC 9728 metadata paths. */
  owns(path: string): boolean;
  /** Serves one request on an owned path; settles when the answer is complete or handed to a stream. */
  serve(incoming: HttpIncoming, out: HttpOutgoing): Promise<void>;
  readonly sessionCount: number;
  readonly activeRequests: number;
  /** Stops accepting, ends SSE streams (listen streams with their final result), drains, then cuts. */
  close(deadlineMs?: number): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An ended session's streams leave the event store at once rather than at its expiry. */
function forgetStreams(store: EventStore | undefined, streams: Set<string>, logger: Logger): void {
  if (store === undefined) return;
  for (const id of streams)
    store
      .delete(id)
      .catch((error: unknown) =>
        logger.warn('sse event store delete failed', { streamId: id, ...errorFields(error) }),
      );
  streams.clear();
}

export function createEndpoint(core: ServerCore, options: McpHttpOptions = {}): McpEndpoint {
  const served = servedVersions(core, options.legacy);
  const resolved = { ...resolveOptions(options), legacy: served.legacy };
  const gate: AuthGate | undefined = createAuthGate(options.auth, core.logger);
  const context: TransportContext = {
    core,
    options: resolved,
    lifecycle: served.legacy
      ? core.lifecycleOptions
      : { ...core.lifecycleOptions, versions: served.versions },
    sse: {
      keepAliveMs: resolved.keepAliveMs,
      maxBufferedBytes: resolved.maxStreamBufferBytes,
      retryMs: resolved.retryMs,
    },
    sessions: new SessionStore({
      ttlMs: resolved.sessionTtlMs,
      maxSessions: resolved.maxSessions,
      maxSessionsPerPrincipal: resolved.maxSessionsPerPrincipal,
      onEnd: (session) => forgetStreams(resolved.eventStore, session.streams, core.logger),
    }),
    exchanges: new Set(),
    closing: false,
    // The core owns connection identity: endpoints (and other transports) sharing it never collide.
    nextId: () => core.mintConnectionId('http'),
  };
  const policy = hostPolicy(resolved.allowedHosts, resolved.allowedOrigins);
  let closing: Promise<void> | undefined;
  return {
    options: resolved,
    authenticated: gate !== undefined,
    owns: (path) => ownsPath(context, gate, path),
    serve: (incoming, out) => routeRequest(context, policy, gate, incoming, out),
    get sessionCount() {
      return context.sessions.size;
    },
    get activeRequests() {
      return context.exchanges.size;
    },
    close(deadlineMs = resolved.closeDeadlineMs) {
      closing ??= shutdown(context, deadlineMs);
      return closing;
    },
  };
}

async function shutdown(context: TransportContext, deadlineMs: number): Promise<void> {
  context.closing = true;
  // Long-lived streams never finish on their own: end them now (listen streams with a result).
  context.sessions.endStreams();
  for (const exchange of context.exchanges) if (exchange.longLived()) exchange.shutdown(false);
  const deadline = Date.now() + deadlineMs;
  while (context.exchanges.size > 0 && Date.now() < deadline) await sleep(10);
  for (const exchange of [...context.exchanges]) exchange.shutdown(true);
  context.sessions.endAll();
}
