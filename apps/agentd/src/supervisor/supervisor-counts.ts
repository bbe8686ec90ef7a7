/** The supervisor's counters: totals since start, and what its live runs hold now. */
import type { SupervisorTotals } from './types.js';

export function zeroTotals(): SupervisorTotals {
  return { spawned: 0, succeeded: 0, failed: 0, cancelled: 0, timedOut: 0, refused: 0, evicted: 0, turns: 0 };
}

/** One-shot runs, warm sessions and the permission prompts waiting among them. */
export function liveCounts(runs: Iterable<{ warm: boolean; pendingPermissionCount: number }>): {
  running: number;
  warm: number;
  pendingPermissions: number;
} {
  const counts = { running: 0, warm: 0, pendingPermissions: 0 };
  for (const run of runs) {
    if (run.warm) counts.warm += 1;
    else counts.running += 1;
    counts.pendingPermissions += run.pendingPermissionCount;
  }
  return counts;
}
