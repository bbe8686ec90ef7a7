/**
 * Who an `execute` belongs to, for Code Mode's fair scheduling: the one place a peer becomes a
 * principal key and a lane.
 */
import type { Peer } from '@agentd/server';

export interface CodeModeCaller {
  /** Executions with the same key share one turn and one running cap. */
  readonly principal: string;
  /** The priority lane (management callers), which restricted callers cannot starve. */
  readonly priority: boolean;
}

/** Transports that only the machine's own users can reach (the socket's file mode, the parent process). */
const LOCAL_TRANSPORTS = new Set(['stdio', 'unix', 'in-process', 'memory']);

/**
 * The principal key and lane of a peer.
 *
 * - An authenticated peer is its principal (`peer.auth.principal` when the transport sets it,
 *   else HTTP's `attributes.principal`), however many connections it opens.
 * - Unauthenticated HTTP peers are ONE principal together: a connection or session costs an
 *   attacker nothing, so counting each as a fresh principal would hand out a fresh turn and a
 *   fresh running cap per connection.
 * - A vsock peer is its VM (`attributes.cid`), for the same reason.
 * - Local transports (stdio, unix) are per connection: they are the operator's own processes.
 *
 * By default only local, unauthenticated-by-design transports are in the priority lane; an
 * embedder with its own trust decision passes `codeMode.priority`.
 */
export function codeModeCaller(peer: Peer, priority?: (peer: Peer) => boolean): CodeModeCaller {
  const authenticated = authenticatedPrincipal(peer);
  const principal =
    authenticated !== undefined
      ? `principal:${authenticated}`
      : peer.transport === 'http'
        ? 'http:anonymous'
        : peer.transport === 'vsock'
          ? `vsock:${String(peer.attributes.cid ?? 'unknown')}`
          : `${peer.transport}:${peer.connectionId}`;
  return {
    principal,
    priority: priority !== undefined ? priority(peer) : LOCAL_TRANSPORTS.has(peer.transport),
  };
}

function authenticatedPrincipal(peer: Peer): string | undefined {
  // `peer.auth` is the transport's own statement of who authenticated (newer servers set it).
  const auth = (peer as Peer & { auth?: { principal?: unknown } }).auth;
  if (typeof auth?.principal === 'string' && auth.principal !== '') return auth.principal;
  const named = peer.attributes.principal;
  return typeof named === 'string' && named !== '' ? named : undefined;
}
