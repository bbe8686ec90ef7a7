/** Admission checks: request fields, capacity per pool, and eviction of finished handles. */
import { LocalError } from '@agentd/rpc-frame';
import type { EffectiveLimits } from './config-check.js';

/** What admission needs to know of a tracked run. */
interface TrackedRun {
  readonly handle: string;
  readonly warm: boolean;
  readonly live: boolean;
  readonly endedAt: Date | undefined;
}

export function checkText(value: unknown, field: string, maxBytes: number): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new LocalError('invalid_request', `${field} must be a non-empty string`);
  }
  if (Buffer.byteLength(value, 'utf8') > maxBytes) {
    throw new LocalError('invalid_request', `${field} is larger than the limit of ${maxBytes} bytes`);
  }
  return value;
}

export function checkTimeout(timeoutMs: unknown, max: number): number {
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > max) {
    throw new LocalError('invalid_request', `timeoutMs must be an integer from 1 to ${max}`);
  }
  return timeoutMs;
}

/** One-shot runs and warm sessions are separate pools, so neither can starve the other. */
export function checkCapacity(runs: Iterable<TrackedRun>, limits: EffectiveLimits, warm: boolean): void {
  let live = 0;
  for (const run of runs) if (run.live && run.warm === warm) live += 1;
  const max = warm ? limits.maxWarmSessions : limits.maxConcurrentRuns;
  if (live >= max) {
    const kind = warm ? 'warm sessions' : 'concurrent runs';
    throw new LocalError('limit_reached', `limit reached: ${live} of ${max} ${kind} in use; retry later`);
  }
}

/**
 * Removes finished runs, oldest end first, until one more fits under `max`; returns them.
 * A live run is never evicted: when only live runs are left the spawn is refused.
 */
export function evictForRoom<R extends TrackedRun>(runs: Map<string, R>, max: number): R[] {
  const evicted: R[] = [];
  while (runs.size >= max) {
    let oldest: R | undefined;
    for (const run of runs.values()) {
      if (run.endedAt === undefined) continue;
      if (oldest?.endedAt === undefined || run.endedAt < oldest.endedAt) oldest = run;
    }
    if (oldest === undefined) {
      throw new LocalError('limit_reached', `limit reached: all ${max} tracked handles belong to live runs`);
    }
    runs.delete(oldest.handle);
    evicted.push(oldest);
  }
  return evicted;
}
