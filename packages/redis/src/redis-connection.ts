/**
 * One replica's link to Redis: a command client and, on first use, a dedicated pub/sub client.
 * The first connection must succeed (see `connect`); after it, both reconnect on their own with a
 * capped backoff. Commands issued while Redis is unreachable fail at once (no offline queue), so
 * a caller never waits on an outage it cannot see.
 */
import { errorFields, LocalError, type Logger, stderrLogger } from '@agentd/rpc-frame';
import { displayUrl, isDefinitiveConnectFailure } from './first-connect.js';
import { redisError } from './local-errors.js';
import { makeClient, type RedisClient, registerClients } from './raw-client.js';

export interface RedisConnectionOptions {
  /** `redis://[user:pass@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Prefix of every key and channel this package uses, so several deployments share one Redis. Default `mcp:`. */
  prefix?: string;
  /** Outages, recoveries and malformed pub/sub messages. Default `stderrLogger()` (JSON lines on stderr, `info` and up). */
  logger?: Logger;
  /** Longest pause between reconnect attempts. Default 2 000 ms. */
  maxReconnectDelayMs?: number;
  /**
   * How long `connect` waits for the first connection before rejecting with `redis_unavailable`
   * (a refusal rejects at once); also each later reconnect attempt's socket timeout. Default 10 000 ms.
   */
  connectTimeoutMs?: number;
}

/** Malformed pub/sub messages are logged at most this often per channel (all are counted). */
const MALFORMED_LOG_INTERVAL_MS = 60_000;

export class RedisConnection {
  readonly prefix: string;
  readonly logger: Logger;
  readonly #client: RedisClient;
  #subscriber: Promise<RedisClient> | undefined;
  readonly #readyListeners = new Set<() => void>();
  readonly #malformed = new Map<string, number>();
  /** Per channel: when a drop was last logged, and how many were dropped since without a line. */
  readonly #malformedLog = new Map<string, { at: number; unlogged: number }>();
  #closed = false;

  private constructor(client: RedisClient, prefix: string, logger: Logger) {
    this.#client = client;
    this.prefix = prefix;
    this.logger = logger;
    this.#watch(client, 'command');
    registerClients(this, { client, subscriber: () => this.#pubsub() });
  }

  /**
   * Connects the command client. The first connection is all or nothing: it rejects with
   * `redis_unavailable` (naming the URL, password hidden) at once when the connection is
   * refused, the host does not resolve or Redis refuses the credentials, and after
   * `connectTimeoutMs` when Redis does not answer (timeouts and resets are retried until then).
   * Once connected, a lost connection is retried with backoff for as long as the connection is open.
   */
  static async connect(options: RedisConnectionOptions): Promise<RedisConnection> {
    const prefix = options.prefix ?? 'mcp:';
    if (!/^[\x21-\x7e]{0,64}$/.test(prefix))
      throw redisError('invalid_option', 'prefix must be at most 64 visible ASCII characters');
    const maxDelay = options.maxReconnectDelayMs ?? 2_000;
    if (!(Number.isSafeInteger(maxDelay) && maxDelay > 0))
      throw redisError('invalid_option', 'maxReconnectDelayMs must be a positive integer');
    const timeout = options.connectTimeoutMs ?? 10_000;
    if (!(Number.isSafeInteger(timeout) && timeout > 0))
      throw redisError('invalid_option', 'connectTimeoutMs must be a positive integer');
    const where = displayUrl(options.url);
    let connected = false;
    let lastFailure: unknown;
    const client = makeClient(options.url, timeout, maxDelay, (cause) => {
      if (connected) return undefined;
      lastFailure = cause;
      return isDefinitiveConnectFailure(cause) ? cause : undefined;
    });
    const connection = new RedisConnection(client, prefix, options.logger ?? stderrLogger());
    const connecting = client.connect();
    // After a timeout the attempt is abandoned (destroy below); its own rejection is not news.
    connecting.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeout);
    });
    try {
      if ((await Promise.race([connecting, deadline])) === 'timeout') {
        const last = lastFailure === undefined ? '' : ` (last error: ${messageOf(lastFailure)})`;
        throw redisError(
          'redis_unavailable',
          `cannot connect to Redis at ${where}: no answer within ${timeout} ms${last}`,
          lastFailure,
        );
      }
    } catch (error) {
      client.destroy();
      if (error instanceof LocalError) throw error;
      const cause = lastFailure ?? error;
      throw redisError(
        'redis_unavailable',
        `cannot connect to Redis at ${where}: ${messageOf(cause)}`,
        cause,
      );
    } finally {
      clearTimeout(timer);
    }
    connected = true;
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
    const wrapped = (message: string) => {
      try {
        listener(message);
      } catch (error) {
        this.logger.error('pub/sub listener failed', { channel, ...errorFields(error) });
      }
    };
    await sub.subscribe(channel, wrapped);
    return async () => {
      if (sub.isReady) await sub.unsubscribe(channel, wrapped).catch(() => undefined);
    };
  }

  /** Pub/sub messages dropped as malformed (see `dropMalformed`), by channel, since the connection opened. */
  get malformed(): ReadonlyMap<string, number> {
    return this.#malformed;
  }

  /**
   * The one path for a pub/sub message its subscriber cannot use (another writer on the channel,
   * a replica of another version, a bug): counted by channel and logged at `warning`, at most once a
   * minute per channel (the next line says how many went unlogged), so a flood cannot drown the log.
   */
  dropMalformed(channel: string, reason: string): void {
    this.#malformed.set(channel, (this.#malformed.get(channel) ?? 0) + 1);
    const now = Date.now();
    const last = this.#malformedLog.get(channel);
    if (last !== undefined && now - last.at < MALFORMED_LOG_INTERVAL_MS) {
      last.unlogged += 1;
      return;
    }
    this.logger.warn('malformed pub/sub message dropped', {
      channel,
      reason,
      droppedUnlogged: last?.unlogged ?? 0,
      droppedTotal: this.#malformed.get(channel) ?? 0,
    });
    this.#malformedLog.set(channel, { at: now, unlogged: 0 });
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

  /** Logs an outage once (not every reconnect attempt) and its end; a failing first connect is `connect`'s rejection instead. */
  #watch(client: RedisClient, role: string): void {
    let down = false;
    let everReady = false;
    client.on('error', (error: unknown) => {
      if (down || this.#closed || (!everReady && role === 'command')) return;
      down = true;
      this.logger.warn(`redis ${role} connection lost; reconnecting`, errorFields(error));
    });
    client.on('ready', () => {
      everReady = true;
      if (down) this.logger.info(`redis ${role} connection restored`);
      down = false;
      for (const listener of [...this.#readyListeners]) listener();
    });
  }
}

function messageOf(error: unknown): string {
  // Node reports a refused dual-stack connect (`localhost`) as an AggregateError with an empty message.
  if (error instanceof AggregateError && error.message === '')
    return error.errors.map(messageOf).join('; ') || String((error as NodeJS.ErrnoException).code);
  return error instanceof Error ? error.message : String(error);
}
