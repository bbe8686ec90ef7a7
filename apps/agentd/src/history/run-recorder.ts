/**
 * Feeds the run store from the supervisor: every status change of a run becomes its record (the
 * last one wins), every event of a run an entry of its log, in the order the supervisor emits
 * them. Records carry `owner` (the starter's principal) so the history lists a restricted peer's
 * own runs only.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import type { AgentEvent, SubagentStatus, Supervisor } from '../supervisor/index.js';
import type { RunStore, StoredRecord } from './history-types.js';

/** The status as stored: the whole status (no tail: the event log has every line), plus `owner`. */
function storedRecordOf(status: SubagentStatus): StoredRecord {
  const { tail: _tail, pid: _pid, ...rest } = status;
  return { ...(rest as unknown as JsonObject), owner: status.startedBy.principal } as StoredRecord;
}

/** Starts recording; the returned function stops it. */
export function recordRuns(supervisor: Supervisor, store: RunStore): () => void {
  /** handle → run id: events name their run by handle, the store by run id. */
  const runIds = new Map<string, string>();
  const onStatus = (status: SubagentStatus): void => {
    // Ended runs leave the map (it stays as small as the live runs); a late line looks its run up.
    if (status.terminal) runIds.delete(status.handle);
    else runIds.set(status.handle, status.runId);
    store.recordRun(storedRecordOf(status));
  };
  const onEvent = (handle: string, event: AgentEvent): void => {
    let runId = runIds.get(handle);
    // A line after the end (a child still exiting): its run is still tracked.
    runId ??= supervisor.status(handle).runId;
    store.appendEvent(runId, event as JsonObject);
  };
  const onTurn = (handle: string): void => onStatus(supervisor.status(handle));
  supervisor.on('status', onStatus).on('event', onEvent).on('turn', onTurn);
  return () => {
    supervisor.off('status', onStatus).off('event', onEvent).off('turn', onTurn);
  };
}
