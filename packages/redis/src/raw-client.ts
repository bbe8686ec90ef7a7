/**
 * The node-redis clients behind a RedisConnection, for this package's own modules only: the
 * public API never exposes node-redis types (they would pull Node's types into every consumer
 * and tie our semver to theirs).
 */
import { createClient } from '@redis/client';
import { redisError } from './local-errors.js';

/**
 * `giveUp(cause)` returning an Error stops reconnecting for good (the pending `connect()`
 * rejects); returning undefined retries with a capped exponential backoff.
 */
export function makeClient(
  url: string,
  connectTimeout: number,
  maxDelay: number,
  giveUp: (cause: unknown) => Error | undefined,
) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout,
      reconnectStrategy: (retries: number, cause: unknown) =>
        giveUp(cause) ?? Math.min(50 * 2 ** Math.min(retries, 10), maxDelay),
    },
  });
}

export type RedisClient = ReturnType<typeof makeClient>;

export interface RawClients {
  readonly client: RedisClient;
  subscriber(): Promise<RedisClient>;
}

const clients = new WeakMap<object, RawClients>();

export function registerClients(owner: object, raw: RawClients): void {
  clients.set(owner, raw);
}

export function clientsOf(owner: object): RawClients {
  const raw = clients.get(owner);
  if (raw === undefined) throw redisError('invalid_option', 'not a RedisConnection');
  return raw;
}
