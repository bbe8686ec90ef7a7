/**
 * A replica's link to the fleet's Redis, opened before the daemon is built: one
 * `@agentd/redis` connection carrying the subscription registry's event bus, the shared task
 * store, the cluster's requestState key and agentd's own run records and leases.
 */

import { hostname } from 'node:os';
import { RedisConnection, RedisEventBus, RedisTaskStore, sharedRequestStateKey } from '@agentd/redis';
import { LocalError, type Logger } from '@agentd/rpc-frame';
import type { ClusterConfig } from '../config/cluster-config.js';
import type { AgentdErrorCode } from '../local-errors.js';

export interface ClusterLink {
  /** This replica's fleet name: `cluster.instanceId`, else a new one for this process. */
  readonly instanceId: string;
  readonly connection: RedisConnection;
  readonly bus: RedisEventBus;
  readonly taskStore: RedisTaskStore;
  /** MRTR requestState HMAC key shared by the fleet (a round sealed on one replica opens on any). */
  readonly requestStateKey: string;
  close(): Promise<void>;
}

/** The default fleet name: readable, and new on every start (a restarted process is a new instance). */
function defaultInstanceId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .slice(0, 40) || 'agentd';
  return `${host}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** How long startup waits for Redis before giving up (exit 1). */
const CONNECT_TIMEOUT_MS = 5_000;

/** Connects and sets up the shared seams; a Redis that does not answer is a startup failure naming the setting. */
export async function openClusterLink(config: ClusterConfig, logger: Logger): Promise<ClusterLink> {
  let connection: RedisConnection;
  try {
    // The first connect rejects on a refusal at once, or after the timeout: startup never hangs.
    connection = await RedisConnection.connect({
      url: config.redisUrl,
      prefix: config.keyPrefix,
      logger,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
  } catch (error) {
    throw new LocalError<AgentdErrorCode>(
      'redis_unreachable',
      `cannot reach Redis (cluster.redisUrl): ${(error as Error).message}`,
    );
  }
  try {
    const [bus, taskStore, requestStateKey] = await Promise.all([
      RedisEventBus.create(connection),
      RedisTaskStore.create(connection),
      sharedRequestStateKey(connection),
    ]);
    return {
      instanceId: config.instanceId ?? defaultInstanceId(),
      connection,
      bus,
      taskStore,
      requestStateKey,
      async close() {
        await bus.close();
        await taskStore.close();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw new LocalError<AgentdErrorCode>(
      'redis_unreachable',
      `cannot set up the fleet in Redis: ${(error as Error).message}`,
    );
  }
}
