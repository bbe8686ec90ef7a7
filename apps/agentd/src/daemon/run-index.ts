/**
 * Where the self-MCP finds runs by handle or run id: this process's supervisor alone, or the
 * fleet when agentd runs as a cluster (src/cluster/). Answers are status JSON either way.
 */
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { Supervisor } from '../supervisor/index.js';
import type { TaskRef } from './operation-spec.js';
import { statusJson } from './status-json.js';

export interface RunIndex {
  /** This replica's fleet name; undefined when agentd runs alone. */
  readonly instanceId: string | undefined;
  /** The run's status, wherever it runs; throws `unknown_handle` when no replica knows it. */
  status(handle: string): Promise<JsonObject>;
  find(handle: string): Promise<JsonObject | undefined>;
  /** By run id, with no authorization: callers apply run-access.ts before showing any of it. */
  findByRunId(runId: string): Promise<JsonObject | undefined>;
  /** Cancels the run on whichever replica owns its process; resolves with its status after. */
  cancel(handle: string, reason: string): Promise<JsonObject>;
  /**
   * The run was spawned as `task`: if its replica dies before it ends, the sweep that marks it
   * lost fails the task too (so `tasks/get` says so on any replica, not only after the TTL).
   */
  bindTask(handle: string, task: TaskRef): void;
  /** Resolves once what this replica knows of the run is readable from every replica. */
  settled(handle: string): Promise<void>;
  /** The fleet view for the inventory; undefined when agentd runs alone. */
  fleet(): Promise<JsonObject | undefined>;
}

export function unknownHandle(): LocalError {
  return new LocalError<AgentdErrorCode>(
    'unknown_handle',
    'unknown handle: it never existed, or its run finished and was evicted',
  );
}

/** The supervisor's status of a handle it tracks, else undefined. */
export function localStatus(supervisor: Supervisor, handle: string): JsonObject | undefined {
  try {
    return statusJson(supervisor.status(handle));
  } catch (error) {
    if (error instanceof LocalError && error.code === 'unknown_handle') return undefined;
    throw error;
  }
}

/** One process: the supervisor is the whole truth. */
export function localRunIndex(supervisor: () => Supervisor): RunIndex {
  return {
    instanceId: undefined,
    status: async (handle) => statusJson(supervisor().status(handle)),
    find: async (handle) => localStatus(supervisor(), handle),
    findByRunId: async (runId) => {
      const status = supervisor().statusByRunId(runId);
      return status === undefined ? undefined : statusJson(status);
    },
    cancel: async (handle, reason) => statusJson(await supervisor().cancel(handle, reason)),
    // One process: its tasks live and die with it.
    bindTask: () => {},
    settled: async () => {},
    fleet: async () => undefined,
  };
}
