/** The facts of one subagent run (what its public status shows), and the status view of them. */
import type { RunEventEntry } from './event-ring.js';
import type { RunUsage } from './run-event.js';
import type {
  AgentProfile,
  PendingPermission,
  PlainTailLine,
  RunBudget,
  RunStarter,
  RunWorkspace,
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

/** Plain data: a run's identity and its latest outcome. The mechanics live in `Run` (run.ts). */
export interface RunRecord {
  readonly handle: string;
  readonly runId: string;
  readonly profile: Readonly<AgentProfile>;
  readonly warm: boolean;
  readonly timeoutMs: number;
  readonly startedBy: Readonly<RunStarter>;
  readonly startedAt: Date;
  state: SubagentState;
  endedAt?: Date;
  result?: unknown;
  output?: string;
  error?: SubagentError;
  reason?: string;
  turns: number;
  busy: boolean;
  /** The run's budget (the profile's and the request's, the smaller of each limit). */
  readonly budget?: RunBudget;
  /** Totals so far, for agents that report them. */
  usage?: RunUsage;
  /** The agent's own session id (Claude Code's, an ACP session's). */
  sessionId?: string;
  /** The run's own worktree or copy, when its profile has one. */
  workspace?: RunWorkspace;
}

/** What a new run is started with (decided by admission). */
export interface RunIdentity {
  handle: string;
  runId: string;
  profile: Readonly<AgentProfile>;
  warm: boolean;
  timeoutMs: number;
  budget?: RunBudget;
  startedBy: Readonly<RunStarter>;
}

/** Facts only the live process knows. */
export interface LiveFacts {
  pid: number | undefined;
  tail: PlainTailLine[] | undefined;
  pendingPermissions?: PendingPermission[];
  events?: RunEventEntry[];
}

const TERMINAL: ReadonlySet<SubagentState> = new Set(['succeeded', 'failed', 'cancelled', 'timed_out']);

export function isTerminal(state: SubagentState): state is TerminalState {
  return TERMINAL.has(state);
}

export function newRunRecord(identity: RunIdentity): RunRecord {
  return { ...identity, startedAt: new Date(), state: 'starting', turns: 0, busy: false };
}

/** A fresh copy for callers: they may keep or serialise it without seeing later changes. */
export function toStatus(record: RunRecord, live: LiveFacts): SubagentStatus {
  const status: SubagentStatus = {
    handle: record.handle,
    runId: record.runId,
    startedBy: { trust: record.startedBy.trust, principal: record.startedBy.principal },
    agent: record.profile.name,
    mode: record.profile.mode,
    state: record.state,
    terminal: isTerminal(record.state),
    startedAt: record.startedAt.toISOString(),
    turns: record.turns,
    warm: record.warm,
    busy: record.busy,
  };
  if (record.endedAt !== undefined) status.endedAt = record.endedAt.toISOString();
  if (record.result !== undefined) status.result = record.result;
  if (record.output !== undefined) status.output = record.output;
  if (record.error !== undefined) status.error = { ...record.error };
  if (live.pid !== undefined) status.pid = live.pid;
  if (record.reason !== undefined) status.reason = record.reason;
  if (live.tail !== undefined) status.tail = live.tail;
  if (record.sessionId !== undefined) status.sessionId = record.sessionId;
  if (record.usage !== undefined) status.usage = { ...record.usage };
  if (live.pendingPermissions !== undefined && live.pendingPermissions.length > 0)
    status.pendingPermissions = live.pendingPermissions;
  if (live.events !== undefined && live.events.length > 0) status.events = live.events;
  if (record.workspace !== undefined) status.workspace = structuredClone(record.workspace);
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
