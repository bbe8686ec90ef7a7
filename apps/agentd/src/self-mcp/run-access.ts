/**
 * Who may read a run: the one authorization rule for run data (issue 39), applied wherever a run
 * is looked up by something other than its handle.
 *
 * - A run's content (output, result, tail, events, error text) belongs to its starter and to
 *   management peers (trust.ts). A run id names a run (logs, traces, the run list) and never
 *   authorizes reading it: a restricted peer that did not start the run gets "not found", the
 *   same answer as for an id that never existed, so ids do not even reveal that a run exists.
 * - The handle is a capability (128 random bits, never logged nor exported): whoever holds it may
 *   read and act on the run, restricted peers included. Handing a handle on is how a starter
 *   delegates; a stateless HTTP client, a new connection per request, reads its runs that way.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { RunStarter } from '../supervisor/index.js';
import { trustOf } from './trust.js';

/** Anonymous HTTP peers are one pool share together: a new connection costs an attacker nothing. */
const ANONYMOUS_SHARE = 'anonymous';

/**
 * A connection key as an opaque principal: run statuses carry the principal, and a legacy HTTP
 * connection id contains its session id, which a status must never reveal.
 */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * Who starts a run when `peer` asks. An authenticated peer (bearer token, OAuth subject) is its
 * principal however many connections it opens; a vsock peer is its VM; every other peer (stdio,
 * unix, anonymous HTTP) is its connection, or its session for legacy HTTP.
 */
export function starterOf(peer: Peer): RunStarter {
  const trust = trustOf(peer);
  const name = peer.auth?.principal ?? peer.attributes.principal;
  if (typeof name === 'string') {
    const principal = `principal:${name}`;
    return { trust, principal, share: principal };
  }
  const key =
    peer.transport === 'vsock' ? `cid:${String(peer.attributes.cid ?? 'unknown')}` : peer.connectionId;
  const principal = `${peer.transport}:${digest(key)}`;
  return { trust, principal, share: peer.transport === 'http' ? ANONYMOUS_SHARE : principal };
}

/** Whether `peer` may read a run it names by run id (a status as the run index answers it). */
function mayReadByRunId(peer: Peer, status: JsonObject): boolean {
  if (trustOf(peer) === 'management') return true;
  const startedBy = status.startedBy as { principal?: unknown } | undefined;
  // A record without a starter (written by an older replica) is the operators' alone.
  return typeof startedBy?.principal === 'string' && startedBy.principal === starterOf(peer).principal;
}

/** The run `peer` may see under this run id, else undefined (exactly as if there were none). */
export function readableByRunId(peer: Peer, status: JsonObject | undefined): JsonObject | undefined {
  return status !== undefined && mayReadByRunId(peer, status) ? status : undefined;
}

/**
 * Whether `peer` may answer a run's permission prompts: its starter and management peers only.
 * The handle lets a restricted peer follow a run or send it a turn, never grant its permissions.
 */
export function mayAnswerFor(peer: Peer, status: JsonObject | undefined): boolean {
  return status !== undefined && mayReadByRunId(peer, status);
}
