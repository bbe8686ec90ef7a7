/** The supervisor's record of one subagent run or warm session, and its public status view. */
import type { ChildHost } from './child-host.js';
import type { ProtocolClient } from './protocol-client.js';
import type {
  AgentEvent,
  AgentProfile,
  PlainTailLine,
  SubagentError,
  SubagentState,
  SubagentStatus,
} from './types.js';

export type TerminalState = 'succeeded' | 'failed' | 'cancelled' | 'timed_out';

/** How a run is going to end once its process is gone (decided by cancel, timeout or a violation). */
export interface Ending {
  state: TerminalState;
  error?: SubagentError;
  reason?: string;
}

export interface RunRecord {
  readonly handle: string;
  readonly runId: string;
  readonly profile: Readonly<AgentProfile>;
  readonly warm: boolean;
  readonly timeoutMs: number;
  readonly startedAt: Date;
  state: SubagentState;
  endedAt?: Date;
  result?: unknown;
  output?: string;
  error?: SubagentError;
  reason?: string;
  turns: number;
  busy: boolean;
  host?: ChildHost;
  client?: ProtocolClient;
  ending?: Ending;
  turnTimer?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  /** Id of the agent request in flight (protocol mode), for `cancel` notifications. */
  turnId?: number;
  /** Plain mode: the stdout collected so far. */
  collectOutput?: () => string;
  /** Plain mode: the last lines of stdout and stderr, readable while it runs. */
  tail?: () => PlainTailLine[];
  /** Per-call event observers (a spawn's or a turn's caller). */
  readonly eventSinks: Set<(event: AgentEvent) => void>;
  /** Called after every change; used to wait for "running", "ready" or terminal. */
  readonly watchers: Set<() => void>;
  /** Resolves when the run reached a terminal state. */
  readonly done: Promise<void>;
  readonly markDone: () => void;
}

const TERMINAL: ReadonlySet<SubagentState> = new Set(['succeeded', 'failed', 'cancelled', 'timed_out']);

export function isTerminal(state: SubagentState): state is TerminalState {
  return TERMINAL.has(state);
}

/** A live run holds a child (or is about to): it counts against the concurrency limits. */
export function isLive(run: RunRecord): boolean {
  return !isTerminal(run.state);
}

export function newRunRecord(fields: {
  handle: string;
  runId: string;
  profile: Readonly<AgentProfile>;
  warm: boolean;
  timeoutMs: number;
}): RunRecord {
  let markDone = (): void => {};
  const done = new Promise<void>((resolve) => {
    markDone = resolve;
  });
  return {
    ...fields,
    startedAt: new Date(),
    state: 'starting',
    turns: 0,
    busy: false,
    watchers: new Set(),
    eventSinks: new Set(),
    done,
    markDone,
  };
}

/** A fresh copy for callers: they may keep or serialise it without seeing later changes. */
export function toStatus(run: RunRecord): SubagentStatus {
  const status: SubagentStatus = {
    handle: run.handle,
    runId: run.runId,
    agent: run.profile.name,
    mode: run.profile.mode,
    state: run.state,
    terminal: isTerminal(run.state),
    startedAt: run.startedAt.toISOString(),
    turns: run.turns,
    warm: run.warm,
    busy: run.busy,
  };
  if (run.endedAt !== undefined) status.endedAt = run.endedAt.toISOString();
  if (run.result !== undefined) status.result = run.result;
  if (run.output !== undefined) status.output = run.output;
  if (run.error !== undefined) status.error = { ...run.error };
  if (run.host?.pid !== undefined) status.pid = run.host.pid;
  if (run.reason !== undefined) status.reason = run.reason;
  if (run.tail !== undefined) status.tail = run.tail();
  return status;
}

/** The human-readable text of a result: its `text` field when it has one, else its JSON. */
export function outputOf(result: unknown): string {
  if (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { text?: unknown }).text === 'string'
  ) {
    return (result as { text: string }).text;
  }
  return JSON.stringify(result) ?? '';
}
