/**
 * How a replica's FIRST connection to Redis fails: a refusal Redis or the network gave for
 * good ends it at once; anything that might pass (a timeout, a reset, a Redis still loading)
 * is retried until the connect deadline. Once connected, every loss is retried forever.
 */
import { ErrorReply } from '@redis/client';
import { redisError } from './local-errors.js';

/** Socket errors no retry can fix: nothing listens, the name does not resolve, the path or TLS peer is wrong. */
const DEFINITIVE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ENOENT', 'EACCES', 'EPERM', 'EADDRNOTAVAIL']);
/** Error replies that mean "try again soon" rather than "no". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN)\b/;

export function isDefinitiveConnectFailure(cause: unknown): cause is Error {
  if (!(cause instanceof Error)) return false;
  // Redis answered the handshake with an error (wrong password, unknown user): it will answer the same again.
  if (cause instanceof ErrorReply) return !TRANSIENT_REPLY.test(cause.message);
  const code = (cause as NodeJS.ErrnoException).code;
  return typeof code === 'string' && (DEFINITIVE_CODES.has(code) || /CERT|TLS|SSL/.test(code));
}

/** The URL as it may appear in errors and logs: the password replaced by `***`. Rejects what is not a Redis URL. */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw redisError('invalid_option', 'url must be a redis:// or rediss:// URL');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw redisError('invalid_option', `url must be a redis:// or rediss:// URL, got ${parsed.protocol}//…`);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href;
}
