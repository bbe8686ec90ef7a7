/** The `cluster` block: agentd replicas sharing run records, cancels and liveness through Redis. */
import type { JsonObject } from '@agentd/rpc-frame';

/** `cluster` as resolved (defaults filled); absent from the config when agentd runs alone. */
export interface ClusterConfig {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Valkey works the same. */
  redisUrl: string;
  /** This replica's name in the fleet; default `<hostname>-<pid>-<random>`, new on every start. */
  instanceId?: string;
  /** Prefix of every Redis key and channel agentd uses (several fleets can share one Redis). */
  keyPrefix: string;
  /** A replica whose lease is not renewed for this long is dead: its unfinished runs become `lost`. */
  leaseTtlMs: number;
  /** How long a finished run's shared record stays readable from every replica. */
  recordTtlMs: number;
}

export const CLUSTER_DEFAULTS = {
  keyPrefix: 'agentd:',
  leaseTtlMs: 15_000,
  recordTtlMs: 24 * 60 * 60 * 1000,
} as const satisfies Omit<ClusterConfig, 'redisUrl'>;

export const CLUSTER_SCHEMA: JsonObject = {
  type: 'object',
  additionalProperties: false,
  required: ['redisUrl'],
  description:
    'Run several agentd replicas as one fleet through Redis (restart required): any replica answers for any run, cancels reach the owner, runs of a dead replica become lost.',
  properties: {
    redisUrl: {
      type: 'string',
      pattern: '^rediss?://.+',
      description: "Redis (or Valkey) URL, e.g. 'redis://redis:6379' or 'rediss://user:secret@host:6380/0'.",
    },
    instanceId: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
      description:
        "This replica's name in the fleet (must be unique while it lives). Default: '<hostname>-<pid>-<random>', new on every start.",
    },
    keyPrefix: {
      type: 'string',
      pattern: '^[!-~]{1,64}$',
      description: "Prefix of agentd's Redis keys and channels (default 'agentd:').",
    },
    leaseTtlMs: {
      type: 'integer',
      minimum: 1000,
      maximum: 600_000,
      description:
        "A replica renews its lease every third of this (default 15000); once it lapses, the survivors mark the replica's unfinished runs lost.",
    },
    recordTtlMs: {
      type: 'integer',
      minimum: 1000,
      description: "How long a finished run's shared record is kept (default 86400000, one day).",
    },
  },
};
