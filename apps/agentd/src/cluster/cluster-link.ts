/**
 * A replica's link to the fleet's Redis, opened before the daemon is built (the subscription
 * registry, the task store and the requestState key are wired from it at construction).
 */
import { LocalError, type Logger } from '@agentd/rpc-frame';
import { createClient } from 'redis';
import type { ClusterConfig } from '../config/cluster-config.js';
import type { FleetRedis } from './fleet-redis.js';

/** Attempts before the first connection counts as failed (about 1.5 s of backoff). */
const STARTUP_ATTEMPTS = 5;

/** `state.connected` flips once the first connection succeeded: from then on, retries never stop. */
function makeClient(url: string, state: { connected: boolean }) {
  return createClient({
    url,
    // Commands fail at once while Redis is unreachable: a request gets a clear error, not a hang.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5_000,
      reconnectStrategy: (retries: number, cause: Error) =>
        !state.connected && retries >= STARTUP_ATTEMPTS
          ? cause
          : Math.min(50 * 2 ** Math.min(retries, 6), 2_000),
    },
  });
}

type RedisClient = ReturnType<typeof makeClient>;

/** One command client and one pub/sub client; both reconnect forever with a capped backoff. */
export class ClusterLink implements FleetRedis {
  readonly #client: RedisClient;
  readonly prefix: string;
  readonly #logger: Logger;
  #subscriber: Promise<RedisClient> | undefined;
  readonly #readyListeners = new Set<() => void>();
  #closed = false;

  private constructor(client: RedisClient, prefix: string, logger: Logger) {
    this.#client = client;
    this.prefix = prefix;
    this.#logger = logger;
    this.#watch(client, 'command');
  }

  /** Connects; a Redis that does not answer is a startup failure (exit 1) naming the URL. */
  static async open(config: ClusterConfig, logger: Logger): Promise<ClusterLink> {
    const state = { connected: false };
    const client = makeClient(config.redisUrl, state);
    const link = new ClusterLink(client, config.keyPrefix, logger);
    try {
      await client.connect();
      state.connected = true;
    } catch (error) {
      client.destroy();
      throw new LocalError(
        'redis_unreachable',
        `cannot reach Redis (cluster.redisUrl): ${(error as Error).message}`,
      );
    }
    return link;
  }

  command(args: readonly (string | number)[]): Promise<unknown> {
    return this.#client.sendCommand(args.map(String));
  }

  publish(channel: string, message: string): Promise<number> {
    return this.#client.publish(channel, message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    const sub = await this.#pubsub();
    const wrapped = (message: string) => listener(message);
    await sub.subscribe(channel, wrapped);
    return async () => {
      if (sub.isReady) await sub.unsubscribe(channel, wrapped).catch(() => undefined);
    };
  }

  /** The pub/sub client, connected on first use. */
  #pubsub(): Promise<RedisClient> {
    this.#subscriber ??= (async () => {
      const sub = this.#client.duplicate();
      this.#watch(sub, 'pub/sub');
      await sub.connect();
      return sub;
    })();
    return this.#subscriber;
  }

  /** Called on every reconnect of either client (after an outage: resubscribed, writable). */
  onReady(listener: () => void): () => void {
    this.#readyListeners.add(listener);
    return () => this.#readyListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const sub = this.#subscriber;
    await Promise.allSettled([
      this.#client.isOpen ? this.#client.close() : Promise.resolve(),
      sub?.then((s) => (s.isOpen ? s.close() : undefined)),
    ]);
  }

  /** One warning per outage (node-redis reports every failed attempt), one line when it ends. */
  #watch(client: RedisClient, role: string): void {
    let down = false;
    client.on('error', (error: unknown) => {
      if (down || this.#closed) return;
      down = true;
      this.#logger.warn(`redis ${role} connection lost; reconnecting`, {
        component: 'cluster',
        role,
        error: String(error),
      });
    });
    client.on('ready', () => {
      if (!down) return;
      down = false;
      this.#logger.info(`redis ${role} connection restored`, { component: 'cluster' });
      for (const listener of [...this.#readyListeners]) listener();
    });
  }
}
