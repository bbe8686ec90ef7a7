/** The Supervisor: admission, limits, handles and lifecycle of subagent runs. */
import type {
  AgentEvent,
  LogEntry,
  SendResult,
  SpawnRequest,
  SubagentStatus,
  SupervisorConfig,
  SupervisorOptions,
  SupervisorSnapshot,
} from './types.js';

type Listeners = {
  status: (status: SubagentStatus) => void;
  turn: (handle: string, turn: number) => void;
  log: (entry: LogEntry) => void;
  event: (handle: string, event: AgentEvent) => void;
};

const notYet = (): never => {
  throw new Error('not implemented yet');
};

export class Supervisor {
  constructor(_options: SupervisorOptions) {}

  /** sync: resolves at terminal; async: once running; warm: after the first turn, state 'ready'. */
  spawn(_request: SpawnRequest, _signal?: AbortSignal): Promise<SubagentStatus> {
    return notYet();
  }
  send(_handle: string, _message: string, _signal?: AbortSignal): Promise<SendResult> {
    return notYet();
  }
  status(_handle: string): SubagentStatus {
    return notYet();
  }
  cancel(_handle: string, _reason?: string): Promise<SubagentStatus> {
    return notYet();
  }
  /** Ends a warm session gracefully (`shutdown`), state 'succeeded'. */
  closeSession(_handle: string): Promise<SubagentStatus> {
    return notYet();
  }
  cancelAll(_reason?: string): Promise<void> {
    return notYet();
  }
  list(): SubagentStatus[] {
    return notYet();
  }
  snapshot(): SupervisorSnapshot {
    return notYet();
  }
  pause(): void {
    notYet();
  }
  resume(): void {
    notYet();
  }
  setReady(_ready: boolean): void {
    notYet();
  }
  drain(_deadlineMs: number): Promise<void> {
    return notYet();
  }
  reconfigure(_config: SupervisorConfig): void {
    notYet();
  }
  /** Kills every child and stops timers; the Supervisor refuses everything afterwards. */
  dispose(): Promise<void> {
    return notYet();
  }
  on<E extends keyof Listeners>(_event: E, _listener: Listeners[E]): this {
    return this;
  }
  off<E extends keyof Listeners>(_event: E, _listener: Listeners[E]): this {
    return this;
  }
}
