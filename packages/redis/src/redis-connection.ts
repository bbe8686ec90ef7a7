/**
 * One replica's link to Redis: a command client and, on first use, a dedicated pub/sub client.
 * Both reconnect on their own with a capped backoff; commands issued while Redis is unreachable
 * fail at once (no offline queue), so a caller never waits on an outage it cannot see.
 */
import { errorFields, type Logger, silentLogger } from '@agentd/rpc-frame';
import { createClient } from '@redis/client';
import { redisError } from './local-errors.js';

function makeClient(url: string, connectTimeout: number, maxDelay: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), maxDelay),
    },
  });
}

/** The node-redis client (RESP3, no modules) this package drives: `connection.client` is one. */
export type RedisClient = ReturnType<typeof makeClient>;

export interface RedisConnectionOptions {
  /** `redis://[user:pass@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Prefix of every key and channel this package uses, so several deployments share one Redis. Default `agentd:`. */
  prefix?: string;
  logger?: Logger;
  /** Longest pause between reconnect attempts. Default 2 000 ms. */
  maxReconnectDelayMs?: number;
  /** How long `connect` waits for the first connection. Default 10 000 ms. */
  connectTimeoutMs?: number;
}

export class RedisConnection {
  readonly client: RedisClient;
  readonly prefix: string;
  readonly logger: Logger;
  #subscriber: Promise<RedisClient> | undefined;
  readonly #readyListeners = new Set<() => void>();
  #closed = false;

  private constructor(client: RedisClient, prefix: string, logger: Logger) {
    this.client = client;
    this.prefix = prefix;
    this.logger = logger;
    this.#watch(client, 'command');
  }

  /** Connects the command client; rejects with `redis_unavailable` when Redis does not answer in time. */
  static async connect(options: RedisConnectionOptions): Promise<RedisConnection> {
    const prefix = options.prefix ?? 'agentd:';
    if (!/^[\x21-\x7e]{0,64}$/.test(prefix))
      throw redisError('invalid_option', 'prefix must be at most 64 visible ASCII characters');
    const maxDelay = options.maxReconnectDelayMs ?? 2_000;
    if (!(Number.isSafeInteger(maxDelay) && maxDelay > 0))
      throw redisError('invalid_option', 'maxReconnectDelayMs must be a positive integer');
    const client = makeClient(options.url, options.connectTimeoutMs ?? 10_000, maxDelay);
    const connection = new RedisConnection(client, prefix, options.logger ?? silentLogger);
    try {
      await client.connect();
    } catch (error) {
      client.destroy();
      throw redisError('redis_unavailable', `cannot connect to Redis: ${(error as Error).message}`, error);
    }
    return connection;
  }

  /** True while the command client can send. */
  get ready(): boolean {
    return this.client.isReady;
  }

  /** The pub/sub client (created and connected on first call). */
  subscriber(): Promise<RedisClient> {
    this.#subscriber ??= (async () => {
      const sub = this.client.duplicate();
      this.#watch(sub, 'pub/sub');
      await sub.connect();
      return sub;
    })();
    return this.#subscriber;
  }

  /** Called each time either client (re)connects: after a Redis restart, the pub/sub client has re-subscribed. */
  onReady(listener: () => void): () => void {
    this.#readyListeners.add(listener);
    return () => this.#readyListeners.delete(listener);
  }

  /** Closes both clients (pending commands are answered first). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const sub = this.#subscriber;
    await Promise.allSettled([
      this.client.isOpen ? this.client.close() : Promise.resolve(),
      sub?.then((s) => (s.isOpen ? s.close() : undefined)),
    ]);
  }

  /** Logs an outage once (not every reconnect attempt) and its end. */
  #watch(client: RedisClient, role: string): void {
    let down = false;
    client.on('error', (error: unknown) => {
      if (down || this.#closed) return;
      down = true;
      this.logger.warn(`redis ${role} connection lost; reconnecting`, errorFields(error));
    });
    client.on('ready', () => {
      if (down) this.logger.info(`redis ${role} connection restored`);
      down = false;
      for (const listener of [...this.#readyListeners]) listener();
    });
  }
}
