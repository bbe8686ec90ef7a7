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
  /** The fleet's run history (cluster/fleet-run-store.ts). */
  readonly history: HistoryKeys;
}

/** The fleet's run history: records, whole event logs, the order by start, retention. */
export interface HistoryKeys {
  /** Hash of one run: `record` (its whole status), `summary`, `handle`, `sort`, `terminal`, `state`, `ended`, `instance`, `bytes`. */
  run(runId: string): string;
  /** List of the run's events (`{at, event}`), its sequence number is its position + 1. */
  events(runId: string): string;
  /** Handle -> run id. Built in scripts too, from this prefix. */
  readonly handlePrefix: string;
  handle(handle: string): string;
  /** Sorted set (all scores 0, ordered by member): `<start ms, 15 digits>:<runId>` of every run. */
  readonly runs: string;
  /** The same for finished runs only: what retention removes, oldest first. */
  readonly done: string;
  /** Set of the run ids an instance recorded live (what its death makes lost). */
  live(instance: string): string;
  /** Set of the instances with a `live` set. */
  readonly instances: string;
  /** Bytes of every record and event, together. */
  readonly bytes: string;
  /** Held by the replica applying retention. */
  readonly retention: string;
  /** Held by the replica marking a dead instance's history lost. */
  sweep(instance: string): string;
}

function historyKeys(prefix: string): HistoryKeys {
  const base = `${prefix}history:`;
  return {
    run: (runId) => `${base}run:${runId}`,
    events: (runId) => `${base}events:${runId}`,
    handlePrefix: `${base}handle:`,
    handle: (handle) => `${base}handle:${handle}`,
    runs: `${base}runs`,
    done: `${base}done`,
    live: (instance) => `${base}live:${instance}`,
    instances: `${base}instances`,
    bytes: `${base}bytes`,
    retention: `${base}retention`,
    sweep: (instance) => `${base}sweep:${instance}`,
  };
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
    history: historyKeys(prefix),
  };
}
