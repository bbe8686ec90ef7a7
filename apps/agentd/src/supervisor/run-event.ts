/**
 * The run event model: one shape for what every mode's agent does (plain and protocol lines,
 * ACP session updates, Claude Code's stream-json), so the resources, the MCP caller's
 * notifications, the CLI, the dashboard, the MCP App and OpenTelemetry read one thing.
 * Every event is an `AgentEvent` (a `type` and fields), so it travels the run's event pipe as is.
 */
import type { PermissionAnswerer, PermissionPolicy } from './types.js';

/** ACP's tool kinds; agents without kinds map onto the nearest, else `other`. */
export type ToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'other';

export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** A guard for one of a closed set of strings, for reading untrusted frames and events. */
function oneOf<T extends string>(values: readonly T[]): (value: unknown) => value is T {
  const known: ReadonlySet<string> = new Set(values);
  return (value): value is T => typeof value === 'string' && known.has(value);
}

export const isToolKind = oneOf<ToolKind>([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'other',
]);
export const isToolCallStatus = oneOf<ToolCallStatus>(['pending', 'in_progress', 'completed', 'failed']);

/** A tool call as shown: the first sight and every update carry its whole current view. */
export interface ToolCallView {
  id: string;
  /** What a person reads: `Write src/a.ts`, `Bash: git status`. */
  title: string;
  kind: ToolKind;
  status: ToolCallStatus;
  /** The tool's name as the agent knows it (`Write`, `Bash`), when it has one. */
  name?: string;
  /** The input, summarised (bounded text, not the raw object). */
  input?: string;
  /** Files the call touches. */
  locations?: string[];
  /** The output, summarised (bounded text). */
  output?: string;
}

export interface PlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority?: 'high' | 'medium' | 'low';
}

/** ACP's option kinds; Claude's allow/deny map onto them. */
export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export const isPermissionOptionKind = oneOf<PermissionOptionKind>([
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
]);

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: PermissionOptionKind;
}

/** An agent asks before a tool runs: a pending decision on the run until answered. */
export interface PermissionRequest {
  /** Unique within the run. */
  requestId: string;
  toolCall: ToolCallView;
  options: PermissionOption[];
}

/** Who answered a permission request. */
export type DecidedBy = 'policy' | 'caller' | 'operator' | 'timeout' | 'cancelled';

export type PermissionDecision =
  | { outcome: 'selected'; optionId: string; kind: PermissionOptionKind; by: DecidedBy }
  | { outcome: 'cancelled'; by: DecidedBy };

/** Token counts and cost so far (totals for the run, not deltas). */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** US dollars, when the agent reports a cost. */
  costUsd?: number;
}

export type RunEvent =
  /** Text the agent says (a chunk; plain and protocol output lines are chunks too). */
  | { type: 'message'; text: string; stream?: 'stdout' | 'stderr' }
  | { type: 'thought'; text: string }
  | { type: 'tool_call'; toolCall: ToolCallView }
  | { type: 'plan'; entries: PlanEntry[] }
  | { type: 'diff'; path: string; oldText?: string; newText: string }
  | { type: 'permission_request'; request: PermissionRequest }
  | { type: 'permission_decision'; requestId: string; decision: PermissionDecision }
  | { type: 'usage'; usage: RunUsage }
  /** A turn ended: the conversation waits for the next message (or the run ends). */
  | { type: 'turn_end'; turn: number; stopReason: string; text: string };

/** What decides a run's permission requests (the profile's policy, the caller, an operator). */
export interface PermissionBroker {
  /**
   * Resolves with exactly one decision. `signal` aborts when the turn the request belongs to
   * ends (cancel, timeout, exit): the answer is then `cancelled`.
   */
  decide(
    run: PermissionSubject,
    request: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision>;
}

/** The run a permission request belongs to, as the broker sees it. */
export interface PermissionSubject {
  readonly handle: string;
  readonly runId: string;
  readonly agent: string;
  /** The profile's policy, consulted first. */
  readonly policy?: PermissionPolicy;
  /** The callers waiting on the run that can answer (a spawn's or a turn's `onPermission`). */
  readonly answerers?: readonly PermissionAnswerer[];
}
