/**
 * A scale-out fleet for tests: a real redis-server, replicas started on it by the caller, and a
 * real nginx in front that routes legacy sessions sticky by their id prefix (`<id>-`).
 */
import { type Nginx, type RedisServer, startNginx, startRedisServer } from '@agentd/cluster-harness';

export interface ReplicaFleet<R> {
  readonly redis: RedisServer;
  readonly replicas: readonly R[];
  readonly nginx: Nginx;
  /** nginx, every replica (one already stopped is fine), then Redis. */
  close(): Promise<void>;
}

export async function startReplicaFleet<R extends { stop(): Promise<unknown> }>(options: {
  /** One per replica; its legacy session ids start with `<id>-`, which nginx routes on. */
  ids: readonly string[];
  start: (id: string, redisUrl: string) => Promise<R>;
  /** The `host:port` nginx proxies to. */
  hostOf: (replica: R) => string;
}): Promise<ReplicaFleet<R>> {
  const redis = await startRedisServer();
  const started = await Promise.allSettled(options.ids.map((id) => options.start(id, redis.url)));
  const replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stopAll = async () => {
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await redis.close();
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) {
    await stopAll();
    throw failed.reason;
  }
  let nginx: Nginx;
  try {
    nginx = await startNginx({
      replicas: replicas.map(options.hostOf),
      sessionPrefixes: options.ids.map((id) => `${id}-`),
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    redis,
    replicas,
    nginx,
    async close() {
      await nginx.close();
      await stopAll();
    },
  };
}
