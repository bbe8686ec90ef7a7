/**
 * `subagent.attach`: follows a run that is already going. The caller gets the live tail and the
 * recent run events it missed, then the agent's events as they come (the same notifications a
 * sync spawn streams), and the status once the run ends (or a warm session finishes its turn).
 * Detaching never touches the run.
 */
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { AgentEvent, SubagentStatus, Supervisor } from '../supervisor/index.js';
import { isOutputLine, lineEvent } from '../supervisor/output-lines.js';
import type { PermissionAnswerer } from '../supervisor/types.js';
import type { OperationContext } from './operation-spec.js';
import { localStatus, type RunIndex, unknownHandle } from './run-index.js';

/** How often a run on another replica is polled: its events stay on that replica. */
const REMOTE_POLL_MS = 500;

/** Where attaching ends: the run is over, or a warm session is idle again. */
function settled(status: JsonObject | SubagentStatus): boolean {
  return (
    status.terminal === true || (status.warm === true && status.state === 'ready' && status.busy !== true)
  );
}

function aborted(): LocalError {
  return new LocalError<AgentdErrorCode>('aborted', 'detached from the run (it goes on)');
}

/** Resolves with the run's status once it settles; rejects with `aborted` when the caller leaves. */
export async function attachRun(
  supervisor: Supervisor,
  runs: RunIndex,
  handle: string,
  context: OperationContext,
  forward: (event: AgentEvent) => void,
  answerer?: PermissionAnswerer,
): Promise<SubagentStatus | JsonObject> {
  const { signal } = context;
  const local = localStatus(supervisor, handle);
  if (local === undefined)
    return (await replayStored(runs, handle, forward)) ?? attachRemote(runs, handle, signal);
  if (settled(local)) return supervisor.status(handle);
  return new Promise((resolve, reject) => {
    const onEvent = (from: string, event: AgentEvent): void => {
      if (from === handle) forward(event);
    };
    const onStatus = (status: SubagentStatus): void => {
      if (status.handle !== handle || !settled(status)) return;
      done();
      resolve(status);
    };
    const onAbort = (): void => {
      done();
      reject(aborted());
    };
    // The attached caller can answer the run's permission requests while it follows the run.
    const unanswer = answerer === undefined ? undefined : supervisor.answerWith(handle, answerer);
    const done = (): void => {
      unanswer?.();
      supervisor.off('event', onEvent).off('status', onStatus);
      signal.removeEventListener('abort', onAbort);
    };
    // Subscribing and reading the tail happen in one turn of the event loop: no line falls between.
    supervisor.on('event', onEvent).on('status', onStatus);
    signal.addEventListener('abort', onAbort, { once: true });
    const now = supervisor.status(handle);
    // The tail's lines go through the same forwarder as the live ones, so stdout lines keep one count.
    for (const entry of now.tail ?? []) forward(lineEvent(entry.stream, entry.text));
    // The run's recent structured events too (tool calls, plan, a pending prompt): its lines
    // are in the tail already, so output lines and a protocol agent's progress and log events are not replayed.
    for (const { seq: _seq, at: _at, ...event } of now.events ?? []) {
      if (event.type !== 'progress' && event.type !== 'log' && !isOutputLine(event)) forward(event);
    }
    if (signal.aborted) onAbort();
    else if (settled(now)) onStatus(now);
  });
}

/** A run of the run store (ended, or lost in an earlier process): its whole log, then its status. */
async function replayStored(
  runs: RunIndex,
  handle: string,
  forward: (event: AgentEvent) => void,
): Promise<JsonObject | undefined> {
  const stored = await runs.history?.byHandle(handle);
  // A fleet's history holds runs live on other replicas too: those are followed, not replayed.
  if (stored === undefined || stored.terminal !== true) return undefined;
  let after = 0;
  for (;;) {
    const page = await runs.history?.events(stored.runId, { after });
    for (const entry of page?.events ?? []) forward(entry.event as AgentEvent);
    if (page?.next === undefined) break;
    after = page.next;
  }
  return runs.status(handle);
}

/** A run owned by another replica: its state is shared, its events are not, so this polls. */
async function attachRemote(runs: RunIndex, handle: string, signal: AbortSignal): Promise<JsonObject> {
  const first = await runs.find(handle);
  if (first === undefined) throw unknownHandle();
  let status = first;
  while (!settled(status)) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, REMOTE_POLL_MS);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(aborted());
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    status = await runs.status(handle);
  }
  return status;
}
