/**
 * One signed-in page's state (its connection, what its peer may see, the runs it knows) and what
 * that peer may do, read off the operations and resources agentd lists to it. The daemon decides
 * every call anyway: these only decide which controls and views the page offers.
 */
import type { AgentdApi, Exposure } from './agentd-api.js';
import type { Connection, Json } from './connection.js';
import { EventLog } from './event-log.js';
import { OutputBuffer, type OutputLine } from './output-buffer.js';
import { entriesOf, type RunEventEntry } from './run-events.js';
import type { RunView } from './view.js';

/** A finished run's whole stored log, read once: its events, and the output lines its messages are. */
export interface WholeLog {
  entries: RunEventEntry[];
  lines: OutputLine[];
}

export interface Session {
  api: AgentdApi;
  connection: Connection;
  exposure: Exposure;
  capabilities: Json;
  status: Json | undefined;
  /** Runs by handle: the inventory's, or the ones this page was handed (tool results, its own spawns). */
  runs: Map<string, RunView>;
  /** Finished runs opened from the History view that agentd no longer tracks (after a restart, or evicted). */
  stored: Map<string, RunView>;
  handed: Set<string>;
  outputs: Map<string, OutputBuffer>;
  /** Each run's events (run-events.ts): from status reads and the followed run's stream. */
  events: Map<string, EventLog>;
  /** Finished runs' whole logs (agent://logs), once read; `none` where agentd keeps no history. */
  wholeLogs: Map<string, WholeLog | 'loading' | 'none'>;
  /** Permission requests answered from this page, while the answer is on its way. */
  answering: Set<string>;
  selected: string | undefined;
  /** The `subagent.attach` call streaming the selected run's lines, while there is one. */
  following: { handle: string; stop: AbortController } | undefined;
  /** Runs whose stream failed (e.g. Code Mode's wall time): their lines come by polling. */
  polled: Set<string>;
  /** Finished runs whose whole status (with output) was read by handle: listings carry summaries only. */
  detailed: Set<string>;
  stops: (() => void)[];
}

const operations = (s: Session) => (s.capabilities.operations ?? []) as { kind: string; id: string }[];
const resources = (s: Session) => (s.capabilities.resources ?? []) as { uri: string }[];
const sees = (s: Session, kind: string, id: string) =>
  operations(s).some((o) => o.kind === kind && o.id === id);
/** Operator controls follow the operator operations this peer sees (trust and scopes decided server-side). */
export const isOperator = (s: Session) => sees(s, 'command', 'cancel');
export const readsInventory = (s: Session) => resources(s).some((r) => r.uri === 'agent://inventory');
/** The run store's resources (agent://runs, agent://logs): daemons before the store list neither. */
export const readsHistory = (s: Session) => resources(s).some((r) => r.uri === 'agent://runs');
export const readsLogs = (s: Session) => resources(s).some((r) => r.uri === 'agent://logs/{handle}');
/** Operators answer any run's prompts; others the runs they were handed (the daemon decides either way). */
export const canApprove = (s: Session, handle: string) =>
  sees(s, 'command', 'subagent.approve') && (isOperator(s) || s.handed.has(handle));
export const canCancel = (s: Session, handle: string) =>
  isOperator(s) || (s.handed.has(handle) && sees(s, 'command', 'subagent.cancel'));
/** Streaming needs a connection that passes request notifications (not a host's bridge) and attach offered to this peer. */
export const canStream = (s: Session, handle: string) =>
  s.connection.stream !== undefined && sees(s, 'query', 'subagent.attach') && !s.polled.has(handle);
/** A run with lines still to come: running, or a warm session answering a turn. */
export const producing = (run: RunView) =>
  !run.terminal && !(run.warm === true && run.state === 'ready' && run.busy !== true);

export function bufferOf(s: Session, handle: string): OutputBuffer {
  let buffer = s.outputs.get(handle);
  if (buffer === undefined) {
    buffer = new OutputBuffer();
    s.outputs.set(handle, buffer);
  }
  return buffer;
}

export function eventsOf(s: Session, handle: string): EventLog {
  let log = s.events.get(handle);
  if (log === undefined) {
    log = new EventLog();
    s.events.set(handle, log);
  }
  return log;
}

export function outputOf(s: Session, run: RunView): OutputBuffer {
  const buffer = bufferOf(s, run.handle);
  // While streamed, the stream is the run's lines; a status read's tail would only repeat them.
  if (run.tail !== undefined && s.following?.handle !== run.handle) buffer.merge(run.tail as OutputLine[]);
  return buffer;
}

export function remember(s: Session, status: Json): RunView | undefined {
  if (typeof status.handle !== 'string' || typeof status.runId !== 'string') return undefined;
  const run = status as unknown as RunView;
  // The next listing's summary of a finished run keeps the output read by handle.
  const known = s.runs.get(run.handle);
  if (run.output === undefined && known?.output !== undefined && known.terminal) run.output = known.output;
  s.runs.set(run.handle, run);
  // Daemons before the event model send no `events`: the log then keeps what the page learnt itself.
  const entries = entriesOf(status);
  if (entries !== undefined) eventsOf(s, run.handle).adopt(entries);
  return run;
}
