/** Public data types of the Supervisor seam: profiles, limits, requests, statuses, events. */

import type { Logger, LogLevel } from '@agentd/rpc-frame';
import type { WorkspaceSummary } from '../workspace/workspace.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import type { RunEventEntry } from './event-ring.js';
import type {
  PermissionBroker,
  PermissionOption,
  PermissionRequest,
  RunUsage,
  ToolCallView,
} from './run-event.js';

/** Which agent protocol a profile speaks. */
export type AgentMode = 'protocol' | 'plain' | 'claude' | 'acp';

/** A permission pattern: a tool kind (`edit`), a tool name (`Read`), a name with an input glob (`Bash(git *)`), or `*`. */
export type PermissionPattern = string;

/** How a profile's agent permission requests are answered before anyone is asked. */
export interface PermissionPolicy {
  /** Requests matching one of these are allowed (unless a deny pattern matches too). */
  allow?: PermissionPattern[];
  /** Requests matching one of these are refused; deny wins over allow. */
  deny?: PermissionPattern[];
  /** What happens to a request no pattern matches. Default `ask`. */
  default?: 'ask' | 'deny' | 'allow';
  /** How long an asked request waits for an answer before it is denied. Default 300000 ms. */
  timeoutMs?: number;
}

/** Stops a run that spends more (the run fails with `budget_exceeded`). */
export interface RunBudget {
  maxCostUsd?: number;
  /** Input + output + cache tokens together. */
  maxTokens?: number;
}

/** A named way to start a subagent. Running children keep the profile they were started with. */
export interface AgentProfile {
  name: string;
  /**
   * `protocol`: NDJSON JSON-RPC on stdio (docs/agent-protocol.md). `plain`: instruction on stdin,
   * stdout is the result. `claude`: Claude Code's stream-json control protocol. `acp`: an Agent
   * Client Protocol agent. `claude` and `acp` runs are conversations (warm unless asked otherwise).
   */
  mode: AgentMode;
  /** The executable (`claude` mode: filled with `claude` by the config when absent). */
  command: string;
  /** Plain mode: `{instruction}` in an argument is replaced by the instruction (stdin then gets EOF at once). */
  args?: string[];
  /** Added to the child's environment (on top of the daemon's unless `inheritEnv` is false). */
  env?: Record<string, string>;
  /** Default true. False starts the child with only `PATH`, `HOME`, `LANG`, `TZ` and `env`. */
  inheritEnv?: boolean;
  cwd?: string;
  /** Per-run (per-turn for warm sessions) timeout; overrides `limits.defaultTimeoutMs`. */
  timeoutMs?: number;
  description?: string;
  /** `claude`/`acp`: how the agent's permission requests are answered (default: ask, deny after 5 min). */
  permissions?: PermissionPolicy;
  /** Stops a run that spends more; a spawn request may set a tighter one. */
  budget?: RunBudget;
  /** A conversation waiting this long for its next message is closed; default `limits.warmIdleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** `acp`: answer the agent's file-system methods (within the run's cwd). Default false. */
  allowFileSystem?: boolean;
  /** `acp`: answer the agent's terminal methods (within the run's cwd). Default false. */
  allowTerminal?: boolean;
  /** Where each run works: its own git worktree, a copy, or `cwd` itself (the default). */
  workspace?: Partial<WorkspaceConfig>;
}

export interface SupervisorLimits {
  /** Live one-shot runs (sync and async) at the same time. Warm sessions are counted separately. */
  maxConcurrentRuns: number;
  /** Live warm sessions (idle or mid-turn). */
  maxWarmSessions: number;
  /** Handles kept for status queries; the oldest finished one is evicted first, a live one never. */
  maxTrackedHandles: number;
  /** Largest result a child may produce (plain: stdout bytes; protocol: one frame). Past it the child is killed. */
  maxOutputBytes: number;
  defaultTimeoutMs: number;
  /** Upper bound for a requested `timeoutMs`. Default: no bound beyond 2^31-1 ms. */
  maxTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace when killing a process group. Default 2000 ms. */
  killGraceMs?: number;
  /** An idle warm session is closed (gracefully) after this long. Default 900000 ms (15 min); 0 disables. */
  warmIdleTimeoutMs?: number;
  /** Bytes of stderr kept per child for failure reports. Default 4096. */
  stderrTailBytes?: number;
  /** Largest accepted instruction or turn message in UTF-8 bytes. Default 1 MiB. */
  maxInstructionBytes?: number;
  /** Concurrent runs only management peers may use: restricted peers share the rest. Default 1. */
  reservedRuns?: number;
  /** Warm sessions only management peers may use: restricted peers share the rest. Default 1. */
  reservedWarmSessions?: number;
  /** Concurrent runs one restricted principal may hold (anonymous HTTP peers are one together). Default 2. */
  restrictedRunsPerPrincipal?: number;
  /** Warm sessions one restricted principal may hold. Default 2. */
  restrictedWarmSessionsPerPrincipal?: number;
  /** Longest run or turn timeout a restricted peer may ask for (and get by default). Default 3600000 (1 h). */
  restrictedMaxTimeoutMs?: number;
}

/** The trust domain of the peer that started a run (the daemon decides it, see self-mcp/trust.ts). */
export type RunTrust = 'management' | 'restricted';

/** Who started a run: whose content it is, and whose share of the pool it counts against. */
export interface RunStarter {
  trust: RunTrust;
  /**
   * Who, as an opaque key: `principal:<name>` for an authenticated peer, else a digest of its
   * connection (never the connection or session id itself, which a status must not reveal).
   */
  principal: string;
  /** The pool share it counts against: its principal, except that anonymous HTTP peers share one. */
  share: string;
}

export interface SpawnRequest {
  /** Profile name; the default agent when absent. */
  agent?: string;
  instruction: string;
  /** Resolve as soon as the child runs, with a handle to poll. */
  async?: boolean;
  /**
   * Keep a live session after the first turn; drive it with `send`. Protocol agents: default
   * false. `claude` and `acp` agents are conversations: default true (false ends the run after its first turn).
   */
  warm?: boolean;
  timeoutMs?: number;
  /** A budget for this run; where the profile has one too, each limit is the smaller of the two. */
  budget?: RunBudget;
  /** Who asks; default: the embedding process itself (management). */
  startedBy?: RunStarter;
  /**
   * A directory inside the profile's `cwd` (relative to it, or absolute) to start the agent in;
   * with a workspace, the same place inside the run's worktree or copy. Outside: `workspace_escape`.
   */
  cwd?: string;
}

export type SubagentState =
  | 'starting'
  | 'running'
  | 'ready' /* warm, idle */
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'timed_out';

/** Why a run failed, machine-readable. */
type FailureCode =
  | 'agent_error' /* the agent answered with an error */
  | 'crashed' /* the child exited or was killed by a signal mid-run */
  | 'exit_nonzero' /* plain mode: exit code other than 0 */
  | 'spawn_failed' /* the command could not be started */
  | 'output_too_large'
  | 'protocol_error' /* the child broke the agent protocol */
  | 'timeout'
  | 'cancelled'
  | 'budget_exceeded' /* the run spent more than its budget */;

export interface SubagentError {
  message: string;
  code?: FailureCode;
  exitCode?: number | null;
  signal?: string | null;
  /** The last bytes of the child's stderr (bounded by `limits.stderrTailBytes`). */
  stderrTail?: string;
  /** `agent_error`: the `data` of the agent's JSON-RPC error, verbatim. */
  data?: unknown;
  /** `budget_exceeded`: the usage at that moment. */
  usage?: RunUsage;
}

/**
 * A caller that can answer the agent's permission requests: resolves with the chosen option id,
 * or undefined when it cannot answer (then the others, an operator or the timeout decide).
 * `signal` aborts once the request is decided otherwise.
 */
export type PermissionAnswerer = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<string | undefined>;

/** A permission request waiting for its answer, as the run's status shows it. */
export interface PendingPermission {
  requestId: string;
  toolCall: ToolCallView;
  options: PermissionOption[];
  /** ISO time the request arrived. */
  since: string;
}

/** Per-call observation of one spawn (the caller does not know the handle before `spawn` resolves). */
export interface SpawnObserver {
  /** Called once the run is admitted, with its handle and run id (state `starting`). */
  onStart?: (status: SubagentStatus) => void;
  /** The run's agent events (progress, log, …) until `spawn` resolves. */
  onEvent?: (event: AgentEvent) => void;
  /** Answers the agent's permission requests until `spawn` resolves. */
  onPermission?: PermissionAnswerer;
}

export interface SendOptions {
  /** Bounds this turn; default: the session's timeout. */
  timeoutMs?: number;
  /** Who sends the turn: a restricted sender gets the restricted timeout cap whoever started the session. */
  sentBy?: RunStarter;
  /** The agent's events during this turn. */
  onEvent?: (event: AgentEvent) => void;
  /** Answers the agent's permission requests during this turn. */
  onPermission?: PermissionAnswerer;
}

export interface SubagentStatus {
  /** Unguessable capability: whoever holds it may send turns and cancel. */
  handle: string;
  /**
   * Names the run (logs, traces, `agent://run/<id>`) but never authorizes anything: its content
   * is readable by id only by its starter and by management peers.
   */
  runId: string;
  /** Who started it (trust domain and opaque principal key), which decides who may read it by run id. */
  startedBy: { trust: RunTrust; principal: string };
  agent: string;
  mode: AgentMode;
  state: SubagentState;
  terminal: boolean;
  startedAt: string;
  endedAt?: string;
  /** The last result: a protocol agent's `run`/`turn` result object, or `{text}` in plain mode. */
  result?: unknown;
  /** Human-readable text of the last result (`result.text`, else its JSON). */
  output?: string;
  /** Set on failed/cancelled/timed_out; on a live warm session, the last turn's error (cleared by a good turn). */
  error?: SubagentError;
  /** Completed turns (a one-shot run that answered counts 1). */
  turns: number;
  warm: boolean;
  /** A warm session with a turn in flight. */
  busy: boolean;
  pid?: number;
  /** Why it was cancelled, when it was. */
  reason?: string;
  /** The last lines of stdout and stderr (bounded), live while it runs; a protocol agent's stderr only (its stdout is the protocol). */
  tail?: PlainTailLine[];
  /** The agent's own session id (`claude`: the Claude Code session, resumable with `--resume`). */
  sessionId?: string;
  /** Tokens and cost so far (agents that report them). */
  usage?: RunUsage;
  /** Permission requests waiting for an answer (`Supervisor.approve`). */
  pendingPermissions?: PendingPermission[];
  /** The run's recent events, newest kept (bounded: event-ring.ts), each with `seq` and `at`. */
  events?: RunEventEntry[];
  /** The run's own worktree or copy (profiles with a `workspace`): where it works, then what it changed. */
  workspace?: RunWorkspace;
}

/**
 * A run's workspace as its status shows it: `live` while the run works in it; once it ended, the
 * summary (branch, commit range, files, insertions, deletions) and whether the workspace was
 * `kept` (its `path` then says where) or `removed`; `failed` when it could not be summarised.
 */
export type RunWorkspace = WorkspaceInUse | (WorkspaceSummary & { state: 'kept' | 'removed' });

/** A run's workspace while it works in it (`live`), or one that could not be summarised (`failed`). */
export interface WorkspaceInUse {
  mode: 'worktree' | 'copy';
  state: 'live' | 'failed';
  path: string;
  /** Where the agent was started (the path, or a directory inside it). */
  cwd: string;
  branch?: string;
  error?: { code: string; message: string };
}

/** One line of an agent's output, as kept in the bounded live tail. */
export interface PlainTailLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface SendResult {
  handle: string;
  turn: number;
  /** The agent's turn result, or its error object when `isError`. */
  reply: unknown;
  isError: boolean;
  output: string;
}

/** A notification from a protocol agent (`event` method), see docs/agent-protocol.md. */
export interface AgentEvent {
  type: 'progress' | 'log' | string;
  [key: string]: unknown;
}

/** One structured log record of the supervisor, as its `log` event carries it. */
export interface LogEntry {
  level: LogLevel;
  msg: string;
  [key: string]: unknown;
}

export interface SupervisorTotals {
  spawned: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  timedOut: number;
  refused: number;
  evicted: number;
  turns: number;
}

export interface SupervisorSnapshot {
  paused: boolean;
  draining: boolean;
  /** Readiness as a load balancer should see it: false while lame-duck or draining. */
  ready: boolean;
  /** Live one-shot runs. */
  running: number;
  /** Live warm sessions. */
  warm: number;
  tracked: number;
  /** Permission requests of live runs waiting for an answer. */
  pendingPermissions: number;
  totals: SupervisorTotals;
  limits: Required<SupervisorLimits>;
  defaultAgent: string;
  agents: string[];
}

export interface SupervisorConfig {
  profiles: AgentProfile[];
  defaultAgent: string;
  limits: SupervisorLimits;
}

export interface SupervisorOptions extends SupervisorConfig {
  /** Gets every entry of the `log` event too (with `component: 'supervisor'`). */
  logger?: Logger;
  /** Decides agents' permission requests; without one every request is refused. */
  permissions?: PermissionBroker;
  /** Where runs' workspaces live (`<stateDir>/workspaces`); default `$XDG_STATE_HOME/agentd`. */
  stateDir?: string;
}
