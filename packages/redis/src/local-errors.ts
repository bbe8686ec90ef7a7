/** The local error codes of @agentd/redis: switch on `error.code`. */
import { LocalError } from '@agentd/rpc-frame';

export type RedisErrorCode =
  /** An option is missing or out of range. */
  | 'invalid_option'
  /** Redis did not answer in time, or refused (connect, subscribe, probe). */
  | 'redis_unavailable'
  /** A task record changed under a write too many times in a row. */
  | 'task_conflict'
  /** An owner already holds the most tasks allowed (the TaskStore seam's refusal). */
  | 'task_limit';

export function redisError(
  code: RedisErrorCode,
  message: string,
  cause?: unknown,
): LocalError<RedisErrorCode> {
  return new LocalError<RedisErrorCode>(code, message, cause === undefined ? undefined : { cause });
}
