/** Which finished runs to remove so the store stays within its bounds: oldest first, never a live one. */
import type { HistoryConfig } from './history-config.js';
import type { IndexEntry } from './history-index.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `entries` oldest first (by start); `bytes` the store's current size. Age counts from a run's
 * end (its start when the record has no end). Returns the runs to remove, oldest first.
 */
export function retentionVictims(
  entries: readonly IndexEntry[],
  bytes: number,
  limits: HistoryConfig,
  now: number,
): IndexEntry[] {
  const finished = entries.filter((entry) => !entry.live);
  const cutoff = now - limits.maxAgeDays * DAY_MS;
  const victims: IndexEntry[] = [];
  let runs = finished.length;
  for (const entry of finished) {
    const tooOld = (entry.endedMs ?? entry.startedMs) < cutoff;
    if (!tooOld && runs <= limits.maxRuns && bytes <= limits.maxBytes) break;
    victims.push(entry);
    runs--;
    bytes -= entry.eventBytes + JSON.stringify(entry.summary).length;
  }
  // Age is by end, not start: a long run started early may have ended recently, and one after it old.
  for (const entry of finished.slice(victims.length)) {
    if ((entry.endedMs ?? entry.startedMs) < cutoff) victims.push(entry);
  }
  return victims;
}
