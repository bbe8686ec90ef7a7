/** How a finished child translates into a run's terminal state, error and output. */
import type { JsonRpcErrorObject } from '@agentd/rpc-frame';
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { ChildExit } from './child-host.js';
import type { Ending, RunRecord, TerminalState } from './run-record.js';
import type { SubagentError } from './types.js';

export interface ExitFacts {
  exitCode: number | null;
  signal: string | null;
  stderrTail?: string;
}

export interface FinishFields {
  result?: unknown;
  output?: string;
  error?: SubagentError;
  reason?: string;
}

export interface Outcome {
  state: TerminalState;
  fields: FinishFields;
}

export function exitFacts(exit: ChildExit): ExitFacts {
  const facts: ExitFacts = { exitCode: exit.exitCode, signal: exit.signal };
  if (exit.stderrTail.length > 0) facts.stderrTail = exit.stderrTail;
  return facts;
}

/** A run whose end was decided before the exit (cancel, timeout, overflow, graceful close). */
export function decidedOutcome(ending: Ending, facts: ExitFacts): Outcome {
  const fields: FinishFields = {};
  if (ending.error !== undefined) fields.error = { ...ending.error, ...facts };
  if (ending.reason !== undefined) fields.reason = ending.reason;
  return { state: ending.state, fields };
}

export function spawnFailedOutcome(command: string, reason: string): Outcome {
  return {
    state: 'failed',
    fields: {
      error: { code: 'spawn_failed', message: `could not start ${JSON.stringify(command)}: ${reason}` },
    },
  };
}

/** Plain mode: exit 0 is success and stdout the result; anything else fails, keeping stdout. */
export function plainOutcome(facts: ExitFacts, stdout: string): Outcome {
  const text = stripFinalNewline(stdout);
  if (facts.exitCode === 0) return { state: 'succeeded', fields: { result: { text }, output: text } };
  const killed = facts.signal !== null;
  const message = killed
    ? `agent was killed by ${facts.signal}`
    : `agent exited with code ${String(facts.exitCode)}`;
  return {
    state: 'failed',
    fields: { output: text, error: { code: killed ? 'crashed' : 'exit_nonzero', message, ...facts } },
  };
}

/** Protocol mode: the child left without being asked to. Only an idle warm session may do so cleanly. */
export function protocolOutcome(run: Pick<RunRecord, 'warm' | 'state'>, facts: ExitFacts): Outcome {
  if (run.warm && run.state === 'ready' && facts.exitCode === 0) {
    return { state: 'succeeded', fields: { reason: 'the agent ended the session' } };
  }
  const how =
    facts.signal !== null ? `was killed by ${facts.signal}` : `exited with code ${String(facts.exitCode)}`;
  const when = run.state === 'ready' ? 'while idle' : 'before answering';
  return {
    state: 'failed',
    fields: { error: { code: 'crashed', message: `agent ${how} ${when}`, ...facts } },
  };
}

export function agentError(error: JsonRpcErrorObject): SubagentError {
  const result: SubagentError = { code: 'agent_error', message: error.message };
  if (error.data !== undefined) result.data = error.data;
  return result;
}

export function tooLarge(max: number): Ending {
  return {
    state: 'failed',
    error: { code: 'output_too_large', message: `output exceeded the limit of ${max} bytes` },
  };
}

/** The refusal a pending `send` gets when its session ended instead of answering. */
export function endedDuringTurn(run: RunRecord): LocalError {
  const why = run.error?.message ?? run.reason ?? run.state;
  if (run.error?.code === 'output_too_large') return new LocalError<AgentdErrorCode>('output_too_large', why);
  return new LocalError<AgentdErrorCode>(
    'session_closed',
    `the session ended during the turn (${run.state}): ${why}`,
  );
}

/** `echo hi` prints `hi\n`; the result is `hi`. Only one final newline goes. */
export function stripFinalNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}
