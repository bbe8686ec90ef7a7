/** How a task record is built and changed: the same rules as dispatch's in-memory store (the seam's contract). */
import { isTerminalTaskStatus } from '@agentd/lifecycle';
import type { TaskChange, TaskInit, TaskRecord } from '@agentd/server';

/** A new `working` record for `init` at `now` (every store builds it the same way). */
export function newTaskRecord(init: TaskInit, now: number): TaskRecord {
  return {
    taskId: newTaskId(),
    owner: init.owner,
    era: init.era,
    method: init.method,
    status: 'working',
    statusMessage: init.statusMessage,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: init.ttlMs,
    pollIntervalMs: init.pollIntervalMs,
    expiresAt: init.ttlMs === null ? undefined : now + init.ttlMs,
    creator: init.creator,
  };
}

/**
 * `record` after `change` at `now`; a terminal record is returned as is (terminal tasks never
 * change). Stores apply it atomically against the record they hold.
 */
export function applyTaskChange(record: TaskRecord, change: TaskChange, now: number): TaskRecord {
  if (isTerminalTaskStatus(record.status)) return record;
  return {
    ...record,
    status: change.status,
    statusMessage: change.statusMessage,
    lastUpdatedAt: now,
    inputRequests: change.status === 'input_required' ? change.inputRequests : undefined,
    // A failed 2025-11-25 tool task keeps its isError result for tasks/result.
    result: change.status === 'completed' || change.status === 'failed' ? change.result : undefined,
    error: change.status === 'failed' ? change.error : undefined,
  };
}

/** A 128-bit random id: task ids are bearer-like, so they must not be guessable. */
function newTaskId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The in-memory default: one process, lost on restart. */
