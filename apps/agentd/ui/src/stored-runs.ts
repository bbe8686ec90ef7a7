/**
 * Finished runs as the run store keeps them: a run's whole log (every page of agent://logs) once
 * it has ended, and runs opened from the History view by handle, which agentd answers for stored
 * runs after a restart as well as for the runs it tracks.
 */
import { PageError, problem } from './connection.js';
import { linesOf, readWholeLog } from './history-api.js';
import { entriesOf } from './run-events.js';
import { eventsOf, readsLogs, remember, type Session } from './session.js';
import { type RunView, showNotice } from './view.js';

/** What loading a stored run calls back into: the page's session, drawing and selection. */
export interface PageHost {
  current(): Session | undefined;
  render(): void;
  select(s: Session, handle: string): void;
  failed(s: Session, error: unknown): void;
}

/** Whole logs kept at once: a run whose log was let go reads it again when shown again. */
const KEPT_LOGS = 8;

export function loadWholeLog(s: Session, run: RunView, page: PageHost): void {
  if (s.wholeLogs.has(run.handle) || !readsLogs(s)) return;
  // Oldest read first (a Map keeps insertion order).
  for (const handle of s.wholeLogs.keys()) {
    if (s.wholeLogs.size < KEPT_LOGS) break;
    if (s.wholeLogs.get(handle) !== 'loading') s.wholeLogs.delete(handle);
  }
  s.wholeLogs.set(run.handle, 'loading');
  readWholeLog(s.api, run.handle).then(
    (entries) => {
      // Nothing stored (history off, or not kept): the run keeps what the page already has.
      if (entries.length === 0) return void s.wholeLogs.set(run.handle, 'none');
      // acp and claude runs tell their messages in the events view; others print them as lines.
      const lines = run.mode === 'acp' || run.mode === 'claude' ? [] : linesOf(entries);
      s.wholeLogs.set(run.handle, { entries, lines });
      page.render();
    },
    (error: unknown) => {
      s.wholeLogs.set(run.handle, 'none');
      if (error instanceof PageError && error.code === 'unauthorized') page.failed(s, error);
    },
  );
}

/**
 * A run chosen in the History view, by its handle (the page names runs by handle, as the
 * inventory and tool results do). A run agentd still tracks is shown as any listed run; another
 * is read by handle (agentd answers for stored runs after a restart too): a finished one is shown
 * from the store, a live one joins the live runs, followed as if handed to the page.
 */
export function openStored(s: Session, handle: string, page: PageHost): void {
  if (s.runs.has(handle) || s.stored.has(handle)) {
    page.select(s, handle);
    return;
  }
  s.api.read(`agent://subagent/${handle}`).then(
    (status) => {
      if (page.current() !== s || status.handle !== handle || typeof status.runId !== 'string') return;
      const run = status as unknown as RunView;
      if (run.terminal) {
        s.stored.set(handle, run);
        const entries = entriesOf(status);
        if (entries !== undefined) eventsOf(s, handle).adopt(entries);
      } else {
        remember(s, status);
        s.handed.add(handle);
      }
      page.select(s, handle);
    },
    (error: unknown) => {
      if (error instanceof PageError && error.code === 'unauthorized') page.failed(s, error);
      else showNotice(`The run could not be read: ${problem(error)}`);
    },
  );
}
