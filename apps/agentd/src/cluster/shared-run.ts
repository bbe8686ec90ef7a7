/** A run record as every replica sees it: the owner's status plus the instance that owns the process. */
import type { JsonObject } from '@agentd/rpc-frame';
import { lostRecord } from '../history/lost-record.js';
import { runDetail } from '../self-mcp/run-view.js';
import type { SubagentStatus } from '../supervisor/index.js';

/**
 * The status JSON of a run (SubagentStatus) with `instance`. Its `state` may also be `lost`: the
 * owning instance died (its lease expired) before the run ended, so its outcome is unknown.
 */
export type SharedStatus = JsonObject & {
  handle: string;
  runId: string;
  state: string;
  terminal: boolean;
  warm: boolean;
  instance: string;
};

/** A run change a replica announces itself (a run it marked lost), in the words of its notifications. */
export interface RunChange {
  instance: string;
  handle: string;
  runId: string;
  state: string;
  terminal: boolean;
  warm: boolean;
}

export function sharedStatus(status: SubagentStatus, instance: string): SharedStatus {
  // The bounded view every replica answers with (its output is never larger than a run's detail).
  return { ...runDetail(status), instance } as SharedStatus;
}

/** The record of a run whose instance died mid-run: terminal, outcome unknown, no process. */
export function lostStatus(status: SharedStatus, now: Date): SharedStatus {
  return lostRecord(
    status,
    now,
    `instance ${status.instance} stopped renewing its lease before the run ended; its outcome is unknown`,
  );
}

export function changeOf(status: SharedStatus): RunChange {
  return {
    instance: status.instance,
    handle: status.handle,
    runId: status.runId,
    state: status.state,
    terminal: status.terminal,
    warm: status.warm,
  };
}
