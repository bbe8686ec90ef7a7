/**
 * Who an `execute` belongs to, for Code Mode's fair scheduling: the one place a peer becomes a
 * principal key and a lane.
 */
import type { Peer } from '@agentd/server';

interface CodeModeCaller {
  /** Executions with the same key share one CPU share and one running cap. */
  readonly principal: string;
  /** The priority lane (management callers), which restricted callers cannot starve. */
  readonly priority: boolean;
}

/**
 * The principal key and lane of a peer.
 *
 * - An authenticated peer (`peer.auth`) is its principal, however many connections it opens.
 * - Anonymous peers (HTTP without credentials) are ONE principal together: a connection or
 *   session costs an attacker nothing, so counting each as a fresh principal would hand out a
 *   fresh CPU share and a fresh running cap per connection.
 * - A vsock peer is its VM (`attributes.cid`), for the same reason.
 * - stdio and unix connections are their own: they are the machine's own processes.
 *
 * By default every peer but an anonymous one is in the priority lane; an embedder with its own
 * trust decision (a restricted stdio harness, say) passes `codeMode.priority`.
 */
export function codeModeCaller(peer: Peer, priority?: (peer: Peer) => boolean): CodeModeCaller {
  // An HTTP peer without credentials is anonymous whatever origin an older transport gave it.
  const anonymous = peer.origin === 'anonymous' || (peer.transport === 'http' && peer.auth === undefined);
  const principal =
    peer.auth !== undefined
      ? `principal:${peer.auth.principal}`
      : anonymous
        ? 'anonymous'
        : peer.transport === 'vsock'
          ? `vsock:${String(peer.attributes.cid ?? 'unknown')}`
          : `${peer.transport}:${peer.connectionId}`;
  return { principal, priority: priority !== undefined ? priority(peer) : !anonymous };
}
