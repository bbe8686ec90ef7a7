/** Which finished runs to remove so the store stays within its bounds: oldest first, never a live one. */
import type { HistoryConfig } from './history-config.js';

/** What retention needs of a run. */
interface RetentionEntry {
  live: boolean;
  startedMs: number;
  endedMs: number | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `entries` oldest first (by start); `bytes` the store's current size, `sizeOf` a run's share of
 * it. Age counts from a run's end (its start when the record has no end). Returns the runs to
 * remove, oldest first.
 */
export function retentionVictims<T extends RetentionEntry>(
  entries: readonly T[],
  bytes: number,
  limits: HistoryConfig,
  now: number,
  sizeOf: (entry: T) => number,
): T[] {
  const finished = entries.filter((entry) => !entry.live);
  const cutoff = now - limits.maxAgeDays * DAY_MS;
  const victims: T[] = [];
  let runs = finished.length;
  for (const entry of finished) {
    const tooOld = (entry.endedMs ?? entry.startedMs) < cutoff;
    if (!tooOld && runs <= limits.maxRuns && bytes <= limits.maxBytes) break;
    victims.push(entry);
    runs--;
    bytes -= sizeOf(entry);
  }
  // Age is by end, not start: a long run started early may have ended recently, and one after it old.
  for (const entry of finished.slice(victims.length)) {
    if ((entry.endedMs ?? entry.startedMs) < cutoff) victims.push(entry);
  }
  return victims;
}
