/** The run store's public shapes: stored records, summaries, events and the queries on them. */
import type { JsonObject } from '@agentd/rpc-frame';

/**
 * A run's status JSON as the daemon records it: these fields are read, the rest is kept as given
 * (result, error, turns, usage, owner and starter fields…). `owner`, when a string, is what
 * `list({owner})` matches. A record without `terminal` is live unless its state is a final one.
 */
export type StoredRecord = JsonObject & {
  handle: string;
  runId: string;
  state: string;
  /** ISO 8601. */
  startedAt: string;
  agent?: string;
  endedAt?: string;
  terminal?: boolean;
  owner?: string;
};

/** A record as listed: without `result`, `output` and `tail`, and long strings cut. */
export type RunSummary = StoredRecord;

/** One event of a run's log: the store numbers them from 1 and stamps their time. */
export interface StoredEvent {
  seq: number;
  /** ISO 8601, when the store was given it. */
  at: string;
  event: JsonObject;
}

export interface ListQuery {
  /** From the previous page's `nextCursor`. */
  cursor?: string;
  /** Default 50, at most 1000. */
  limit?: number;
  agent?: string;
  state?: string;
  /** Runs started at or after this time. */
  since?: Date;
  /** Only runs whose record's `owner` is this. */
  owner?: string;
  /** Case-insensitive; matches the run id, agent, state, error message, instruction and the start of the output. */
  text?: string;
}

export interface RunPage {
  /** Newest first. */
  runs: RunSummary[];
  /** Absent on the last page. */
  nextCursor?: string;
}

export interface EventQuery {
  /** Events after this sequence number (default 0: from the first). */
  after?: number;
  /** Default 1000, at most 10000. */
  limit?: number;
}

export interface EventPage {
  events: StoredEvent[];
  /** Pass as `after` for the next page; absent once the log (as written so far) is read. */
  next?: number;
}

/** What the store holds and whether it is keeping history at all. */
export interface StoreInfo {
  dir: string;
  runs: number;
  bytes: number;
  /** False once writes fail (full disk, unwritable directory) until one succeeds again. */
  keeping: boolean;
}

/**
 * A run store: the file store (run-store-file.ts) for one daemon, Redis (cluster/fleet-run-store.ts)
 * for a fleet. The daemon records into it and reads history from it the same way for both.
 */
export interface RunStore {
  /** Where the store is: the state directory (the file store keeps `history/` in it), or the fleet's Redis. */
  readonly dir: string;
  recordRun(record: StoredRecord): void;
  appendEvent(runId: string, event: JsonObject): void;
  get(runIdOrHandle: string): Promise<StoredRecord | undefined>;
  events(runId: string, query?: EventQuery): Promise<EventPage>;
  /** Throws `invalid_request` for a cursor that is not a `nextCursor`. */
  list(query?: ListQuery): Promise<RunPage>;
  markLiveRunsLost(now?: Date): Promise<StoredRecord[]>;
  /** Resolves once everything recorded so far is written (or has failed to be). */
  flush(): Promise<void>;
  info(): StoreInfo;
  close(): Promise<void>;
}
