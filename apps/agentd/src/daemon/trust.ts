/** Trust by origin, as ClientFilters: stdio peers never see nor call operator operations or management resources. */
import type { ClientFilters } from '@agentd/dispatch';
import type { PeerOrigin } from '@agentd/server';
import { filterName, type OperationSpec } from './operation-spec.js';
import { RESOURCE_SPECS } from './resources.js';

/**
 * Management peers (socket listeners, authenticated or loopback HTTP) get everything. A stdio
 * peer is typically the agent harness that launched agentd as a tool server: it must never drain
 * or lame-duck its own supervisor, nor read other runs' handles. Hidden means absent on the wire.
 */
export function filtersByOrigin(operations: readonly OperationSpec[]): Record<PeerOrigin, ClientFilters> {
  const operatorTools = operations.filter((o) => o.operator).map(filterName);
  // Prefix patterns so query strings (agent://events?after=N) and trailing slashes are covered too.
  const managementResources = RESOURCE_SPECS.filter((r) => r.management).map((r) => `${r.uri}*`);
  return {
    management: {},
    stdio: {
      visible: { deny: operatorTools },
      callable: { denyTools: operatorTools },
      resources: { deny: managementResources },
    },
  };
}
