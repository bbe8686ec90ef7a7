/**
 * A replica's link to the fleet's Redis, opened before the daemon is built: one
 * `@agentd/redis` connection carrying the subscription registry's event bus, the shared task
 * store, the cluster's requestState key and agentd's own run records and leases.
 */

import { connect } from 'node:net';
import { RedisConnection, RedisEventBus, RedisTaskStore, sharedRequestStateKey } from '@agentd/redis';
import { LocalError, type Logger } from '@agentd/rpc-frame';
import type { ClusterConfig } from '../config/cluster-config.js';
import type { AgentdErrorCode } from '../local-errors.js';

export interface ClusterLink {
  readonly connection: RedisConnection;
  readonly bus: RedisEventBus;
  readonly taskStore: RedisTaskStore;
  /** MRTR requestState HMAC key shared by the fleet (a round sealed on one replica opens on any). */
  readonly requestStateKey: string;
  close(): Promise<void>;
}

/** How long startup waits for Redis before giving up (exit 1). */
const CONNECT_TIMEOUT_MS = 5_000;

/** Connects and sets up the shared seams; a Redis that does not answer is a startup failure naming the setting. */
export async function openClusterLink(config: ClusterConfig, logger: Logger): Promise<ClusterLink> {
  let connection: RedisConnection;
  try {
    // The client retries a refused connection forever; a replica must not hang at startup.
    await reachable(config.redisUrl);
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

/** Resolves once a TCP connection to the URL's host and port opens (rejects on refusal or timeout). */
function reachable(redisUrl: string): Promise<void> {
  const url = new URL(redisUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = url.port === '' ? 6379 : Number(url.port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${port} in ${CONNECT_TIMEOUT_MS} ms`));
    });
    socket.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}
