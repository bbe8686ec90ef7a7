/** The Redis connections of a replica: one for commands, one for subscriptions; both reconnect forever. */

import type { Logger } from '@agentd/rpc-frame';
import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof connectionTo>;

/** Reconnect backoff: quick at first, then every 2 s for as long as Redis is away. */
function backoff(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 6), 2_000);
}

/**
 * Commands fail at once while Redis is unreachable (no offline queue): a request that needs the
 * fleet gets a clear error instead of hanging, and the replica re-publishes its runs once back.
 */
export function redisClient(url: string, logger: Logger, role: string): RedisClient {
  const client = connectionTo(url);
  let down = false;
  client.on('error', (error: unknown) => {
    // node-redis emits an error per failed attempt; one warning per outage is enough.
    if (down) return;
    down = true;
    logger.warn('redis connection lost; reconnecting', { role, error: String(error) });
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('redis connection restored', { role });
  });
  return client;
}

function connectionTo(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: backoff, connectTimeout: 5_000 },
  });
}
