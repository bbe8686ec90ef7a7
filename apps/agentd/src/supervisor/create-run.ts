/**
 * The run of a profile's mode, and what a conversation needs to continue in a new process: a
 * `claude` or `acp` session whose process is gone (its daemon restarted) keeps its handle and
 * run id and resumes the agent's own session (Claude `--resume`, ACP `session/resume`/`load`).
 */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { AcpRun } from './acp-run.js';
import { ClaudeRun } from './claude-run.js';
import { PlainRun } from './plain-run.js';
import { ProtocolRun } from './protocol-run.js';
import type { Run, RunContext } from './run.js';
import type { RunIdentity } from './run-record.js';
import type {
  AgentProfile,
  RunStarter,
  SendOptions,
  SendResult,
  SpawnRequest,
  SubagentStatus,
} from './types.js';

/** A conversation to continue: its identity, its profile, the agent's session id, its starter. */
export interface ResumableSession {
  handle: string;
  runId: string;
  agent: string;
  sessionId: string;
  startedBy: RunStarter;
}

/** Finds the conversation behind a handle the supervisor does not track (the daemon's run store). */
export type ResumeSource = (handle: string) => Promise<ResumableSession | undefined>;

export function createRun(identity: RunIdentity, context: RunContext, sessionId?: string): Run {
  const { profile } = identity;
  if (sessionId !== undefined && profile.mode !== 'claude' && profile.mode !== 'acp')
    throw new LocalError<AgentdErrorCode>(
      'invalid_request',
      `agent "${profile.name}" runs in ${profile.mode} mode: only claude and acp conversations continue in a new process`,
    );
  switch (profile.mode) {
    case 'plain':
      return new PlainRun(identity, context);
    case 'protocol':
      return new ProtocolRun(identity, context);
    case 'claude':
      return new ClaudeRun(identity, context, sessionId === undefined ? {} : { resumeSessionId: sessionId });
    case 'acp':
      return new AcpRun(identity, context, sessionId === undefined ? {} : { sessionId });
    default:
      throw new LocalError<AgentdErrorCode>(
        'invalid_request',
        `agent "${profile.name}": mode "${profile.mode}" is not available`,
      );
  }
}

/**
 * Whether a run is a conversation: protocol agents when asked (`warm`), `claude` and `acp`
 * agents unless asked not to be; plain agents never.
 */
export function warmFor(
  profile: Pick<AgentProfile, 'name' | 'mode'>,
  requested: boolean | undefined,
): boolean {
  if (profile.mode === 'claude' || profile.mode === 'acp') return requested !== false;
  if (requested === true && profile.mode === 'plain') {
    throw new LocalError<AgentdErrorCode>(
      'invalid_request',
      `agent "${profile.name}" runs in plain mode; warm sessions need a protocol, claude or acp agent`,
    );
  }
  return requested === true;
}

/** The spawn that continues `stored`: a warm run of its agent, `message` its first turn. */
export function resumeRequest(stored: ResumableSession, message: string, options: SendOptions): SpawnRequest {
  const request: SpawnRequest = {
    agent: stored.agent,
    instruction: message,
    warm: true,
    startedBy: stored.startedBy,
  };
  if (options.timeoutMs !== undefined) request.timeoutMs = options.timeoutMs;
  return request;
}

/** The reply of a continued conversation's first turn, as `send` answers one. */
export function firstTurn(status: SubagentStatus): SendResult {
  return {
    handle: status.handle,
    turn: status.turns,
    reply: status.error ?? status.result ?? null,
    isError: status.error !== undefined,
    output: status.output ?? '',
  };
}
