/** The cluster's requestState key: one for every replica, kept across a Redis restart by the replicas holding it. */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { sharedRequestStateKey } from './request-state-key.js';
import { until } from './test-support/capture-writer.js';

const haveRedis = clusterBinariesAvailable('@agentd/redis requestState key', ['redis-server']);
let redis: RedisServer | undefined;
beforeAll(async () => {
  if (haveRedis) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

describe.runIf(haveRedis)('sharedRequestStateKey', () => {
  it('gives every replica the same random key, and restores it after Redis lost it', async () => {
    const server = redis as RedisServer;
    const first = await RedisConnection.connect({ url: server.url, maxReconnectDelayMs: 100 });
    const [k1, k2] = await Promise.all([sharedRequestStateKey(first), sharedRequestStateKey(first)]);
    const second = await RedisConnection.connect({ url: server.url });
    const k3 = await sharedRequestStateKey(second);
    expect(k1).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set([k1, k2, k3]).size).toBe(1);
    await second.close();

    await server.restart(); // nothing persisted: the key is gone from Redis
    await until(() => first.ready, 'the reconnect');
    const third = await RedisConnection.connect({ url: server.url });
    try {
      // The running replica stores its key again as it reconnects.
      await vi.waitFor(
        async () =>
          expect(await third.command(['GET', 'mcp:request-state-key']), 'the key stored again').toBe(k1),
        { timeout: 10_000, interval: 20 },
      );
      expect(await sharedRequestStateKey(third)).toBe(k1);
    } finally {
      await third.close();
      await first.close();
    }
  });
});
