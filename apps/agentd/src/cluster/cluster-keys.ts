/** Where agentd keeps fleet state in Redis: every key and channel name, in one place. */

export interface ClusterKeys {
  /** Hash of one run: `json` (its status), `terminal` ('0'/'1'), `owner`, `state`. */
  run(handle: string): string;
  /** Run id -> handle, so `agent://run/<id>` resolves on any replica. */
  runId(runId: string): string;
  /** Set of the handles an instance has not finished yet (what the lost sweep marks). */
  live(instance: string): string;
  /** Hash: instance id -> its registration (JSON). */
  readonly instances: string;
  /** Exists while the instance is alive (refreshed by heartbeat, expires after the lease TTL). */
  lease(instance: string): string;
  /** Held by the one survivor that sweeps a dead instance. */
  sweep(instance: string): string;
  /** Pub/sub: cancels for the runs an instance owns. */
  cancelChannel(instance: string): string;
}

export function clusterKeys(prefix: string): ClusterKeys {
  return {
    run: (handle) => `${prefix}run:${handle}`,
    runId: (runId) => `${prefix}runid:${runId}`,
    live: (instance) => `${prefix}live:${instance}`,
    instances: `${prefix}instances`,
    lease: (instance) => `${prefix}lease:${instance}`,
    sweep: (instance) => `${prefix}sweep:${instance}`,
    cancelChannel: (instance) => `${prefix}cancel:${instance}`,
  };
}
