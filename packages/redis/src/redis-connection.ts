/**
 * One replica's link to Redis: a command client and, on first use, a dedicated pub/sub client.
 * Both reconnect on their own with a capped backoff; commands issued while Redis is unreachable
 * fail at once (no offline queue), so a caller never waits on an outage it cannot see.
 */
import { errorFields, type Logger, silentLogger } from '@agentd/rpc-frame';
import { redisError } from './local-errors.js';
import { makeClient, type RedisClient, registerClients } from './raw-client.js';

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
  readonly prefix: string;
  readonly logger: Logger;
  readonly #client: RedisClient;
  #subscriber: Promise<RedisClient> | undefined;
  readonly #readyListeners = new Set<() => void>();
  #closed = false;

  private constructor(client: RedisClient, prefix: string, logger: Logger) {
    this.#client = client;
    this.prefix = prefix;
    this.logger = logger;
    this.#watch(client, 'command');
    registerClients(this, { client, subscriber: () => this.#pubsub() });
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
    return this.#client.isReady;
  }

  /**
   * Any Redis command, e.g. `['HSET', key, field, value]`; resolves to Redis's reply (RESP3:
   * strings, numbers, arrays, maps as objects, null). Rejects at once while Redis is unreachable.
   */
  command(args: readonly (string | number)[]): Promise<unknown> {
    return this.#client.sendCommand(args.map(String));
  }

  /** PUBLISH; resolves to the number of subscribers that got it. */
  publish(channel: string, message: string): Promise<number> {
    return this.#client.publish(channel, message);
  }

  /**
   * Subscribes the pub/sub client to `channel` (re-subscribed after every reconnect); resolves
   * once active, to the unsubscribe.
   */
  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    const sub = await this.#pubsub();
    const wrapped = (message: string) => listener(message);
    await sub.subscribe(channel, wrapped);
    return async () => {
      if (sub.isReady) await sub.unsubscribe(channel, wrapped).catch(() => undefined);
    };
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
      this.#client.isOpen ? this.#client.close() : Promise.resolve(),
      sub?.then((s) => (s.isOpen ? s.close() : undefined)),
    ]);
  }

  #pubsub(): Promise<RedisClient> {
    this.#subscriber ??= (async () => {
      const sub = this.#client.duplicate();
      this.#watch(sub, 'pub/sub');
      await sub.connect();
      return sub;
    })();
    return this.#subscriber;
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
