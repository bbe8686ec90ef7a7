/** Trust by origin, as ClientFilters: stdio peers never see nor call operator operations or management resources. */
import type { ClientFilters } from '@agentd/dispatch';
import type { Peer } from '@agentd/server';
import { filterName, type OperationSpec } from './operation-spec.js';
import { RESOURCE_SPECS } from './resources.js';

export type Trust = 'management' | 'restricted';

/**
 * Management needs an access control of its own: a 0600 unix socket, the VM boundary (vsock), or
 * a bearer token over HTTP. Unauthenticated loopback HTTP is reachable by every local user and
 * process, so it gets the same restricted surface as a stdio peer.
 */
export function trustOf(peer: Peer): Trust {
  // The one place a peer's trust is decided: every visibility decision in agentd derives from it.
  if (peer.origin !== 'management') return 'restricted';
  if (peer.transport === 'http' && peer.attributes.principal === undefined) return 'restricted';
  return 'management';
}

/**
 * Management peers get everything. A restricted peer (stdio: typically the agent harness that
 * launched agentd as a tool server) must never drain or lame-duck its own supervisor, nor read
 * other runs' handles. Hidden means absent on the wire.
 */
export function filtersByTrust(operations: readonly OperationSpec[]): Record<Trust, ClientFilters> {
  const operatorTools = operations.filter((o) => o.operator).map(filterName);
  // Prefix patterns so query strings (agent://events?after=N) and trailing slashes are covered too.
  const managementResources = RESOURCE_SPECS.filter((r) => r.management).map((r) => `${r.uri}*`);
  return {
    management: {},
    restricted: {
      visible: { deny: operatorTools },
      callable: { denyTools: operatorTools },
      resources: { deny: managementResources },
    },
  };
}

/** Whether a peer may know that an operator operation or a management resource exists. */
export function seesManagement(peer: Peer): boolean {
  return trustOf(peer) === 'management';
}

/**
 * The trust a listener hands its peers, for the startup log: decided by trustOf on the kind of
 * peer the listener produces, so the log can never disagree with what peers really get.
 */
export function listenerTrust(transport: string, authenticated: boolean): Trust {
  return trustOf({
    origin: transport === 'stdio' ? 'stdio' : 'management',
    transport,
    connectionId: 'listener',
    attributes: authenticated ? { principal: 'bearer token holder' } : {},
  });
}
