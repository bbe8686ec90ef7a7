/**
 * Retention of the fleet's history: the `history` bounds of the embedded store, oldest finished
 * runs first, never a live one. One replica at a time holds the retention key; removing a run is
 * idempotent anyway (two replicas removing the same run free its bytes once).
 */
import type { HistoryConfig } from '../history/history-config.js';
import type { HistoryKeys } from './cluster-keys.js';
import { RELEASE, REMOVE_RUN } from './fleet-history-scripts.js';
import { type FleetRedis, strings } from './fleet-redis.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a replica may hold retention before another may take it (a holder that died). */
const HOLD_MS = 60_000;
const CHUNK = 200;

export interface RetentionState {
  /** Runs in the history (live and finished). */
  runs: number;
  bytes: number;
  removed: number;
  /** Another replica held retention: bounds may still be passed (the caller tries again soon). */
  busy: boolean;
}

export interface RetentionOptions {
  /** Only when a count or size bound is passed (after writes); age waits for the hourly pass. */
  cheap: boolean;
  /** Who holds the retention key meanwhile (the instance id). */
  holder: string;
}

function runIdOf(member: string): string {
  return member.slice(16);
}

export async function applyFleetRetention(
  redis: FleetRedis,
  k: HistoryKeys,
  limits: HistoryConfig,
  now: number,
  options: RetentionOptions,
): Promise<RetentionState> {
  const counts = async () => ({
    finished: Number(await redis.command(['ZCARD', k.done])),
    runs: Number(await redis.command(['ZCARD', k.runs])),
    bytes: Number((await redis.command(['GET', k.bytes])) ?? 0),
  });
  let state = await counts();
  const over = () => state.finished > limits.maxRuns || state.bytes > limits.maxBytes;
  if (options.cheap && !over()) return { runs: state.runs, bytes: state.bytes, removed: 0, busy: false };
  const token = `${options.holder}:${now}:${Math.random()}`;
  if ((await redis.command(['SET', k.retention, token, 'NX', 'PX', HOLD_MS])) === null)
    return { runs: state.runs, bytes: state.bytes, removed: 0, busy: true };
  let removed = 0;
  const remove = async (member: string): Promise<void> => {
    const runId = runIdOf(member);
    const freed = Number(
      await redis.command([
        'EVAL',
        REMOVE_RUN,
        5,
        k.run(runId),
        k.events(runId),
        k.runs,
        k.done,
        k.bytes,
        member,
        runId,
        k.handlePrefix,
      ]),
    );
    removed++;
    state.finished--;
    state.bytes -= freed;
  };
  try {
    // Count and size: the oldest finished runs go until both bounds hold.
    while (over()) {
      const oldest = strings(await redis.command(['ZRANGEBYLEX', k.done, '-', '+', 'LIMIT', 0, CHUNK]));
      if (oldest.length === 0) break;
      for (const member of oldest) {
        if (!over()) break;
        await remove(member);
      }
    }
    if (!options.cheap) {
      // Age counts from a run's end, which is never before its start: only runs started before
      // the cutoff can be too old.
      const cutoff = now - limits.maxAgeDays * DAY_MS;
      const bound = `(${String(Math.max(0, cutoff)).padStart(15, '0')}`;
      const candidates = strings(await redis.command(['ZRANGEBYLEX', k.done, '-', bound]));
      for (const member of candidates) {
        const ended = Number(await redis.command(['HGET', k.run(runIdOf(member)), 'ended']));
        const at = Number.isFinite(ended) && ended > 0 ? ended : Number(member.slice(0, 15));
        if (at < cutoff) await remove(member);
      }
    }
    state = await counts();
  } finally {
    await redis.command(['EVAL', RELEASE, 1, k.retention, token]);
  }
  return { runs: state.runs, bytes: state.bytes, removed, busy: false };
}
