/** The body of agent://status and `query_status`: the daemon's identity, uptime and supervisor counters. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { Exposure } from '../config/config-schema.js';
import type { Supervisor } from '../supervisor/index.js';

export interface DaemonIdentity {
  version: string;
  startedAt: Date;
  /** This replica's fleet name, when agentd runs as a cluster. */
  instanceId: string | undefined;
}

export function daemonStatus(
  supervisor: Supervisor,
  identity: DaemonIdentity,
  exposure: Exposure,
): JsonObject {
  const s = supervisor.snapshot();
  return {
    name: 'agentd',
    version: identity.version,
    pid: process.pid,
    startedAt: identity.startedAt.toISOString(),
    uptimeMs: Date.now() - identity.startedAt.getTime(),
    ready: s.ready,
    paused: s.paused,
    draining: s.draining,
    running: s.running,
    warm: s.warm,
    tracked: s.tracked,
    totals: { ...s.totals },
    defaultAgent: s.defaultAgent,
    agents: [...s.agents],
    exposure,
    ...(identity.instanceId === undefined ? {} : { instance: identity.instanceId }),
  };
}
