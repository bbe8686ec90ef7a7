/**
 * One MRTR `requestState` HMAC key for the whole cluster, so a round sealed by one replica opens on
 * any other: the first replica to ask stores a random key (SET NX), every replica reads the same one.
 * After a Redis restart that lost it (no persistence), the running replicas store the key they
 * hold again, so a replica started later reads the same one. Rotate by deleting the key and
 * restarting every replica (states sealed before fail verification; their clients start over).
 */
import { randomBytes } from 'node:crypto';
import { redisError } from './local-errors.js';
import type { RedisConnection } from './redis-connection.js';

export interface SharedRequestStateKeyOptions {
  /** The Redis key holding it. Default `<prefix>request-state-key`. */
  key?: string;
}

/** The cluster's key (base64url of 32 random bytes): pass it as the Dispatcher's `requestState.key`. */
export async function sharedRequestStateKey(
  connection: RedisConnection,
  options: SharedRequestStateKeyOptions = {},
): Promise<string> {
  const name = options.key ?? `${connection.prefix}request-state-key`;
  const candidate = randomBytes(32).toString('base64url');
  await connection.command(['SET', name, candidate, 'NX']);
  const key = await connection.command(['GET', name]);
  if (typeof key !== 'string' || key.length < 22)
    throw redisError('redis_unavailable', `${name} holds no usable requestState key`);
  connection.onReady(() => {
    connection.command(['SET', name, key, 'NX']).catch((error: unknown) => {
      connection.logger.warn('could not restore the requestState key', { error: String(error) });
    });
  });
  return key;
}
