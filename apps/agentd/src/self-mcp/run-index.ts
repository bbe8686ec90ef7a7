/**
 * Where the self-MCP finds runs by handle or run id: this process's supervisor alone, or the
 * fleet when agentd runs as a cluster (src/cluster/). Answers are status JSON either way.
 */
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type {
  EventPage,
  EventQuery,
  ListQuery,
  RunPage,
  RunStore,
  StoredRecord,
} from '../history/history-types.js';
import type { AgentdErrorCode } from '../local-errors.js';
import type { Supervisor } from '../supervisor/index.js';
import type { TaskRef } from './operation-spec.js';
import { runDetail } from './run-view.js';
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
  /**
   * The run store, when history is kept (on disk for one daemon, in Redis for a fleet): runs of
   * earlier processes and whole event logs. Callers apply run-access.ts (`list` by `owner`).
   */
  readonly history?: RunHistory;
}

/** What the run store offers the operations and resources, by handle or run id. */
export interface RunHistory {
  /** The stored run under this handle (never by run id: a handle is a capability, an id is not). */
  byHandle(handle: string): Promise<StoredRecord | undefined>;
  byRunId(runId: string): Promise<StoredRecord | undefined>;
  events(runId: string, query?: EventQuery): Promise<EventPage>;
  list(query: ListQuery): Promise<RunPage>;
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

/** The run store's side of the index: exact matches only (the store's `get` takes either key). */
export function storeHistory(store: RunStore): RunHistory {
  return {
    byHandle: async (handle) => {
      const record = await store.get(handle);
      return record?.handle === handle ? record : undefined;
    },
    byRunId: async (runId) => {
      const record = await store.get(runId);
      return record?.runId === runId ? record : undefined;
    },
    // Written before read: a reader told the run ended must find its last events too.
    events: async (runId, query) => {
      await store.flush();
      return store.events(runId, query);
    },
    list: (query) => store.list(query),
  };
}

/** A stored record as a status answer: bounded like a live one, without the store's `owner`. */
export function storedStatus(record: StoredRecord): JsonObject {
  const { owner: _owner, ...status } = record;
  return runDetail(status);
}

/**
 * One process: the supervisor is the truth for the runs it tracks; the run store (when kept)
 * answers for the rest: runs it evicted and runs of earlier processes (ended, or `lost`).
 */
export function localRunIndex(supervisor: () => Supervisor, store?: RunStore): RunIndex {
  const history = store === undefined ? undefined : storeHistory(store);
  const stored = async (record: Promise<StoredRecord | undefined> | undefined) => {
    const found = await record;
    return found === undefined ? undefined : storedStatus(found);
  };
  const find = async (handle: string) =>
    localStatus(supervisor(), handle) ?? (await stored(history?.byHandle(handle)));
  return {
    instanceId: undefined,
    status: async (handle) => {
      const status = await find(handle);
      if (status === undefined) throw unknownHandle();
      return status;
    },
    find,
    findByRunId: async (runId) => {
      const status = supervisor().statusByRunId(runId);
      return status === undefined ? await stored(history?.byRunId(runId)) : statusJson(status);
    },
    cancel: async (handle, reason) => {
      // A stored run is over (ended, or lost with its process): nothing is left to cancel.
      if (localStatus(supervisor(), handle) === undefined) {
        const status = await stored(history?.byHandle(handle));
        if (status !== undefined) return status;
      }
      return statusJson(await supervisor().cancel(handle, reason));
    },
    // One process: its tasks live and die with it.
    bindTask: () => {},
    settled: async () => {},
    fleet: async () => undefined,
    ...(history === undefined ? {} : { history }),
  };
}
