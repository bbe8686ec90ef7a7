/**
 * The shapes of Claude Code's stream-json protocol agentd relies on: the command line that turns
 * it on, the permission options a `can_use_tool` request offers and the response to a decision,
 * and a turn's result.
 */
import type { PermissionDecision, PermissionOption } from './run-event.js';

/** What the run's result keeps of one turn. */
export interface ClaudeTurnResult {
  turn: number;
  /** The turn's final text (or the error's). */
  text: string;
  isError: boolean;
  /** The model's stop reason, else the result's subtype (`success`, `error_during_execution`, …). */
  stopReason: string;
  subtype: string;
  sessionId?: string;
  /** The session's cumulative cost in US dollars, as the CLI computes it. */
  costUsd?: number;
  durationMs?: number;
  /** Model round trips in this turn. */
  numTurns?: number;
}

/**
 * The profile's arguments, then the protocol's: stream-json both ways with partial messages,
 * permission prompts on the control channel (stdio), and `--resume` to continue a session in a
 * new process.
 */
export function claudeArgs(profileArgs: readonly string[], resumeSessionId?: string): string[] {
  return [
    ...profileArgs,
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    // Text and thinking as they are generated (message and thought chunks), not only per block.
    '--include-partial-messages',
    '--permission-prompt-tool',
    'stdio',
    ...(resumeSessionId === undefined ? [] : ['--resume', resumeSessionId]),
  ];
}

/** Allow once, allow always (when the CLI suggests a rule to remember), deny. */
export function permissionOptions(request: Record<string, unknown>): PermissionOption[] {
  const options: PermissionOption[] = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }];
  if (Array.isArray(request.permission_suggestions) && request.permission_suggestions.length > 0)
    options.push({ optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' });
  options.push({ optionId: 'deny', name: 'Deny', kind: 'reject_once' });
  return options;
}

const DENIED_BY: Record<PermissionDecision['by'], string> = {
  policy: "denied by the agent profile's permission policy",
  caller: 'denied by the caller',
  operator: 'denied by an operator',
  timeout: 'denied: nobody answered the permission request in time',
  cancelled: 'denied: the turn ended before the permission request was answered',
};

/** The `can_use_tool` response for a decision. */
export function permissionResponse(
  decision: PermissionDecision,
  request: Record<string, unknown>,
): Record<string, unknown> {
  if (
    decision.outcome === 'selected' &&
    (decision.kind === 'allow_once' || decision.kind === 'allow_always')
  ) {
    const response: Record<string, unknown> = { behavior: 'allow', updatedInput: request.input ?? {} };
    if (decision.kind === 'allow_always' && Array.isArray(request.permission_suggestions))
      response.updatedPermissions = request.permission_suggestions;
    return response;
  }
  return { behavior: 'deny', message: DENIED_BY[decision.by] };
}

/** A `result` message as the turn's result. */
export function turnResult(message: Record<string, unknown>, turn: number): ClaudeTurnResult {
  const subtype = typeof message.subtype === 'string' ? message.subtype : 'unknown';
  const isError = message.is_error === true || subtype !== 'success';
  const errors = Array.isArray(message.errors) ? message.errors.map(String).join('; ') : '';
  const text =
    typeof message.result === 'string' && message.result !== ''
      ? message.result
      : isError
        ? errors || `claude ended the turn with ${subtype}`
        : '';
  const result: ClaudeTurnResult = {
    turn,
    text,
    isError,
    stopReason: typeof message.stop_reason === 'string' ? message.stop_reason : subtype,
    subtype,
  };
  if (typeof message.session_id === 'string') result.sessionId = message.session_id;
  if (typeof message.total_cost_usd === 'number') result.costUsd = message.total_cost_usd;
  if (typeof message.duration_ms === 'number') result.durationMs = message.duration_ms;
  if (typeof message.num_turns === 'number') result.numTurns = message.num_turns;
  return result;
}
