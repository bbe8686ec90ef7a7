/** Admission checks: request fields, capacity per pool and per share, and eviction of finished handles. */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { EffectiveConfig, EffectiveLimits } from './config-check.js';
import { type ResumableSession, warmFor } from './create-run.js';
import { newHandle, newRunId } from './ids.js';
import type { RunIdentity } from './run-record.js';
import { budgetProblem, effectiveBudget } from './run-usage.js';
import type { RunStarter, SpawnRequest } from './types.js';

/** What admission needs to know of a tracked run. */
export interface TrackedRun {
  readonly handle: string;
  readonly warm: boolean;
  readonly live: boolean;
  readonly endedAt: Date | undefined;
  readonly startedBy: Readonly<RunStarter>;
}

export function checkText(value: unknown, field: string, maxBytes: number): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new LocalError<AgentdErrorCode>('invalid_request', `${field} must be a non-empty string`);
  }
  if (Buffer.byteLength(value, 'utf8') > maxBytes) {
    throw new LocalError<AgentdErrorCode>(
      'invalid_request',
      `${field} is larger than the limit of ${maxBytes} bytes`,
    );
  }
  return value;
}

function checkTimeout(timeoutMs: unknown, max: number): number {
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > max) {
    throw new LocalError<AgentdErrorCode>('invalid_request', `timeoutMs must be an integer from 1 to ${max}`);
  }
  return timeoutMs;
}

/** The longest timeout a run started by `starter` may have (per turn for warm sessions). */
function timeoutCap(limits: EffectiveLimits, starter: Readonly<RunStarter>): number {
  return starter.trust === 'restricted'
    ? Math.min(limits.maxTimeoutMs, limits.restrictedMaxTimeoutMs)
    : limits.maxTimeoutMs;
}

/**
 * A run's timeout: what the caller asked for, within its cap (a restricted peer asking for more
 * is refused, naming the limit); when it asked for none, the configured default, cut to the cap.
 */
export function runTimeout(
  requested: unknown,
  fallback: number,
  limits: EffectiveLimits,
  starter: Readonly<RunStarter>,
): number {
  const cap = timeoutCap(limits, starter);
  if (requested === undefined) return Math.min(fallback, cap);
  if (typeof requested === 'number' && requested > cap && cap < limits.maxTimeoutMs) {
    throw new LocalError<AgentdErrorCode>(
      'invalid_request',
      `timeoutMs ${requested} is over the ${cap} ms restricted peers may ask for (limits.restrictedMaxTimeoutMs)`,
    );
  }
  return checkTimeout(requested, cap);
}

interface Pool {
  /** `concurrent runs` or `warm sessions`, as refusals name it. */
  kind: string;
  max: number;
  reserved: number;
  perPrincipal: number;
  /** The config keys, so a refusal says what to change. */
  reservedKey: string;
  perPrincipalKey: string;
}

function poolOf(limits: EffectiveLimits, warm: boolean): Pool {
  return warm
    ? {
        kind: 'warm sessions',
        max: limits.maxWarmSessions,
        reserved: limits.reservedWarmSessions,
        perPrincipal: limits.restrictedWarmSessionsPerPrincipal,
        reservedKey: 'limits.reservedWarmSessions',
        perPrincipalKey: 'limits.restrictedWarmSessionsPerPrincipal',
      }
    : {
        kind: 'concurrent runs',
        max: limits.maxConcurrentRuns,
        reserved: limits.reservedRuns,
        perPrincipal: limits.restrictedRunsPerPrincipal,
        reservedKey: 'limits.reservedRuns',
        perPrincipalKey: 'limits.restrictedRunsPerPrincipal',
      };
}

function refuse(message: string): never {
  throw new LocalError<AgentdErrorCode>('limit_reached', `limit reached: ${message}; retry later`);
}

/**
 * One-shot runs and warm sessions are separate pools, so neither can starve the other. Within a
 * pool, restricted peers together never take the reserve kept for management peers, and one
 * restricted principal never takes more than its share of what is left (anonymous HTTP peers are
 * one principal together: a connection costs nothing). A refusal names the limit and whose it is.
 */
function checkCapacity(
  runs: Iterable<TrackedRun>,
  limits: EffectiveLimits,
  warm: boolean,
  starter: Readonly<RunStarter>,
): void {
  const pool = poolOf(limits, warm);
  let live = 0;
  let restricted = 0;
  let mine = 0;
  for (const run of runs) {
    if (!run.live || run.warm !== warm) continue;
    live += 1;
    if (run.startedBy.trust !== 'restricted') continue;
    restricted += 1;
    if (run.startedBy.share === starter.share) mine += 1;
  }
  if (starter.trust === 'restricted') {
    const shared = Math.max(0, pool.max - pool.reserved);
    const own = Math.min(pool.perPrincipal, shared);
    const reserve = `${pool.reservedKey} keeps ${pool.max - shared} for operators`;
    if (shared === 0) refuse(`restricted peers get none of the ${pool.max} ${pool.kind} (${reserve})`);
    if (restricted >= shared)
      refuse(
        `restricted peers share ${shared} of ${pool.max} ${pool.kind} (${reserve}); all ${shared} in use`,
      );
    if (mine >= own)
      refuse(
        `${whose(starter)} may hold ${own} ${pool.kind} at once (${pool.perPrincipalKey}); all ${own} in use`,
      );
  }
  if (live >= pool.max) refuse(`${live} of ${pool.max} ${pool.kind} in use`);
}

/** Whose share a refusal names, without revealing a connection key. */
function whose(starter: Readonly<RunStarter>): string {
  if (starter.share === 'anonymous') return 'anonymous HTTP peers (one share together)';
  if (starter.share.startsWith('principal:')) return `restricted principal "${starter.share.slice(10)}"`;
  return 'this restricted peer';
}

/**
 * Removes finished runs, oldest end first, until one more fits under `max`; returns them.
 * A live run is never evicted: when only live runs are left the spawn is refused.
 */
function evictForRoom<R extends TrackedRun>(runs: Map<string, R>, max: number): R[] {
  const evicted: R[] = [];
  while (runs.size >= max) {
    let oldest: R | undefined;
    for (const run of runs.values()) {
      if (run.endedAt === undefined) continue;
      if (oldest?.endedAt === undefined || run.endedAt < oldest.endedAt) oldest = run;
    }
    if (oldest === undefined) {
      throw new LocalError<AgentdErrorCode>(
        'limit_reached',
        `limit reached: all ${max} tracked handles belong to live runs`,
      );
    }
    runs.delete(oldest.handle);
    evicted.push(oldest);
  }
  return evicted;
}

/**
 * Admits a spawn (or the continuation `revive` of a stored conversation): the request checked
 * against the profile and the limits, room made among the tracked handles. `preparing`: admitted
 * runs whose workspace is still being made (they hold their place in the pools).
 */
export function admitRun<R extends TrackedRun>(
  request: SpawnRequest,
  config: EffectiveConfig,
  runs: { tracked: Map<string, R>; preparing: Iterable<TrackedRun>; starter: RunStarter },
  revive?: ResumableSession,
): { identity: RunIdentity; evicted: R[] } {
  if (typeof request !== 'object' || request === null)
    throw new LocalError<AgentdErrorCode>('invalid_request', 'a spawn request is an object');
  const { limits, profiles } = config;
  checkText(request.instruction, 'instruction', limits.maxInstructionBytes);
  const name = request.agent ?? config.defaultAgent;
  const profile = typeof name === 'string' ? profiles.get(name) : undefined;
  if (profile === undefined) {
    throw new LocalError<AgentdErrorCode>(
      'unknown_agent',
      `unknown agent ${JSON.stringify(name)}; known: ${[...profiles.keys()].join(', ')}`,
    );
  }
  const warm = warmFor(profile, request.warm);
  if (request.budget !== undefined) {
    const problem = budgetProblem(request.budget);
    if (problem !== undefined)
      throw new LocalError<AgentdErrorCode>('invalid_request', `budget${problem[0]} ${problem[1]}`);
  }
  const budget = effectiveBudget(profile.budget, request.budget);
  const startedBy = request.startedBy ?? runs.starter;
  const fallback = profile.timeoutMs ?? limits.defaultTimeoutMs;
  const timeoutMs = runTimeout(request.timeoutMs, fallback, limits, startedBy);
  checkCapacity([...runs.tracked.values(), ...runs.preparing], limits, warm, startedBy);
  const evicted = evictForRoom(runs.tracked, limits.maxTrackedHandles);
  const identity: RunIdentity = {
    handle: revive?.handle ?? newHandle(),
    runId: revive?.runId ?? newRunId(),
    profile,
    warm,
    timeoutMs,
    startedBy,
    ...(budget === undefined ? {} : { budget }),
  };
  return { identity, evicted };
}
