/** The Supervisor's state and mechanics: admission, run endings, timers, events and its log. */
import { LocalError } from '@agentd/rpc-frame';
import { checkCapacity, checkText, checkTimeout, evictForRoom } from './admission.js';
import type { ChildHost } from './child-host.js';
import { checkConfig, type EffectiveConfig } from './config-check.js';
import type { FinishFields, Outcome } from './exit-outcome.js';
import { newHandle, newRunId } from './ids.js';
import {
  type Ending,
  isTerminal,
  newRunRecord,
  type RunRecord,
  type TerminalState,
  toStatus,
} from './run-record.js';
import { TypedEmitter } from './typed-emitter.js';
import type {
  AgentEvent,
  LogEntry,
  Logger,
  SpawnRequest,
  SubagentError,
  SubagentStatus,
  SupervisorOptions,
  SupervisorTotals,
} from './types.js';

export type SupervisorListeners = {
  /** Every state change of a run, terminal included. */
  status: (status: SubagentStatus) => void;
  /** A warm session completed a turn (the first one included). */
  turn: (handle: string, turn: number) => void;
  /** Structured log entries of the supervisor and of agents' `log` events. */
  log: (entry: LogEntry) => void;
  /** Every `event` notification of a protocol agent (progress, log, custom). */
  event: (handle: string, event: AgentEvent) => void;
};

const TOTAL_KEY: Record<TerminalState, keyof SupervisorTotals> = {
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  timed_out: 'timedOut',
};

const LOG_LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'warn', 'error']);
const MAX_AGENT_LOG_CHARS = 4096;

/**
 * What every part of the Supervisor shares. The public API and the running of children live in
 * `Supervisor` (supervisor.ts); this class keeps the records and the rules for ending a run.
 */
export abstract class SupervisorBase {
  /** Ends a warm session gracefully (the idle timer calls it). */
  protected abstract endSession(run: RunRecord, reason: string): Promise<void>;

  protected config: EffectiveConfig;
  /** Insertion order is start order, which eviction relies on for ties. */
  protected readonly runs = new Map<string, RunRecord>();
  /** Children of finished runs that are still exiting (stdin closed, grace running). */
  protected readonly lingering = new Set<ChildHost>();
  protected readonly emitter: TypedEmitter<SupervisorListeners>;
  protected readonly logger: Logger | undefined;
  protected paused = false;
  protected draining = false;
  protected ready = true;
  protected disposed = false;
  protected readonly totals: SupervisorTotals = {
    spawned: 0,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    timedOut: 0,
    refused: 0,
    evicted: 0,
    turns: 0,
  };

  constructor(options: SupervisorOptions) {
    this.config = checkConfig(options);
    this.logger = options.logger;
    this.emitter = new TypedEmitter((event, error) => this.listenerFailed(String(event), error));
  }

  on<E extends keyof SupervisorListeners>(event: E, listener: SupervisorListeners[E]): this {
    this.emitter.on(event, listener);
    return this;
  }

  off<E extends keyof SupervisorListeners>(event: E, listener: SupervisorListeners[E]): this {
    this.emitter.off(event, listener);
    return this;
  }

  // ---- admission ------------------------------------------------------------------------------

  protected admit(request: SpawnRequest): RunRecord {
    try {
      return this.admitOrThrow(request);
    } catch (error) {
      this.totals.refused += 1;
      const code = error instanceof LocalError ? error.code : 'error';
      this.log('warn', 'spawn refused', { code, reason: (error as Error).message });
      throw error;
    }
  }

  protected admitOrThrow(request: SpawnRequest): RunRecord {
    this.checkAdmission('spawn');
    if (typeof request !== 'object' || request === null)
      throw new LocalError('invalid_request', 'a spawn request is an object');
    const { limits, profiles } = this.config;
    checkText(request.instruction, 'instruction', limits.maxInstructionBytes);
    const name = request.agent ?? this.config.defaultAgent;
    const profile = typeof name === 'string' ? profiles.get(name) : undefined;
    if (profile === undefined) {
      throw new LocalError(
        'unknown_agent',
        `unknown agent ${JSON.stringify(name)}; known: ${[...profiles.keys()].join(', ')}`,
      );
    }
    const warm = request.warm === true;
    if (warm && profile.mode !== 'protocol') {
      throw new LocalError(
        'invalid_request',
        `agent "${profile.name}" runs in plain mode; warm sessions need a protocol agent`,
      );
    }
    const timeoutMs = checkTimeout(
      request.timeoutMs ?? profile.timeoutMs ?? limits.defaultTimeoutMs,
      limits.maxTimeoutMs,
    );
    checkCapacity(this.runs.values(), limits, warm);
    for (const evicted of evictForRoom(this.runs, limits.maxTrackedHandles)) {
      this.totals.evicted += 1;
      this.log('debug', 'finished run evicted', runFields(evicted));
    }
    return newRunRecord({ handle: newHandle(), runId: newRunId(), profile, warm, timeoutMs });
  }

  protected checkAdmission(what: 'spawn' | 'turn'): void {
    if (this.disposed) throw new LocalError('draining', 'the supervisor has shut down');
    if (this.draining) throw new LocalError('draining', `draining: no new ${what}s are accepted`);
    if (this.paused) throw new LocalError('paused', `paused: no new ${what}s are accepted until resume`);
  }

  /** Decides how the run ends, then kills its process tree; it ends when the child is gone. */
  protected terminate(run: RunRecord, ending: Ending): Promise<void> {
    if (isTerminal(run.state)) return run.done;
    if (run.ending === undefined) run.ending = ending;
    this.clearTimer(run);
    this.clearIdle(run);
    if (run.host === undefined) this.finish(run, ending.state, ending);
    else void run.host.kill();
    return run.done;
  }

  protected end(run: RunRecord, outcome: Outcome): void {
    this.finish(run, outcome.state, outcome.fields);
  }

  protected finish(run: RunRecord, state: TerminalState, fields: FinishFields): void {
    if (isTerminal(run.state)) return;
    this.clearTimer(run);
    this.clearIdle(run);
    run.state = state;
    run.endedAt = new Date();
    run.busy = false;
    if (fields.result !== undefined) run.result = fields.result;
    if (fields.output !== undefined) run.output = fields.output;
    if (fields.error !== undefined) run.error = fields.error;
    else if (state === 'succeeded' && !run.warm) delete run.error;
    if (fields.reason !== undefined) run.reason = fields.reason;
    this.totals[TOTAL_KEY[state]] += 1;
    const host = run.host;
    if (host?.alive) {
      this.lingering.add(host);
      void host.shutdown().then(() => this.lingering.delete(host));
    }
    const level = state === 'succeeded' ? 'info' : 'warn';
    this.log(level, 'subagent ended', {
      ...runFields(run),
      state,
      ...(run.error ? { error: run.error.message } : {}),
    });
    this.emitStatus(run);
    run.markDone();
  }

  // ---- timers ---------------------------------------------------------------------------------

  protected armTimer(run: RunRecord, timeoutMs: number): void {
    this.clearTimer(run);
    run.turnTimer = setTimeout(() => {
      const error: SubagentError = { code: 'timeout', message: `timed out after ${timeoutMs} ms` };
      this.log('warn', 'subagent timed out', { ...runFields(run), timeoutMs });
      void this.terminate(run, { state: 'timed_out', error });
    }, timeoutMs);
  }

  protected clearTimer(run: RunRecord): void {
    if (run.turnTimer !== undefined) clearTimeout(run.turnTimer);
    delete run.turnTimer;
  }

  protected armIdle(run: RunRecord): void {
    this.clearIdle(run);
    const idleMs = this.config.limits.warmIdleTimeoutMs;
    if (idleMs === 0) return;
    run.idleTimer = setTimeout(() => void this.endSession(run, 'idle timeout'), idleMs);
    run.idleTimer.unref();
  }

  protected clearIdle(run: RunRecord): void {
    if (run.idleTimer !== undefined) clearTimeout(run.idleTimer);
    delete run.idleTimer;
  }

  // ---- events ---------------------------------------------------------------------------------

  protected get(handle: string): RunRecord {
    const run = typeof handle === 'string' ? this.runs.get(handle) : undefined;
    if (run === undefined) {
      throw new LocalError(
        'unknown_handle',
        'unknown handle: it never existed, or its run finished and was evicted',
      );
    }
    return run;
  }

  protected setState(run: RunRecord, state: RunRecord['state']): void {
    run.state = state;
    this.emitStatus(run);
  }

  protected emitStatus(run: RunRecord): void {
    this.emitter.emit('status', toStatus(run));
    for (const watcher of [...run.watchers]) watcher();
  }

  protected waitFor(run: RunRecord, reached: (run: RunRecord) => boolean): Promise<void> {
    if (reached(run)) return Promise.resolve();
    return new Promise((resolve) => {
      const watcher = (): void => {
        if (!reached(run)) return;
        run.watchers.delete(watcher);
        resolve();
      };
      run.watchers.add(watcher);
    });
  }

  /** A plain run's output line: for the waiting caller only (the daemon log is not the agent's stdout). */
  protected streamEvent(run: RunRecord, event: AgentEvent): void {
    this.emitter.emit('event', run.handle, event);
    for (const sink of [...run.eventSinks]) this.callObserver('onEvent', () => sink(event));
  }

  protected onAgentEvent(run: RunRecord, event: AgentEvent): void {
    this.emitter.emit('event', run.handle, event);
    for (const sink of [...run.eventSinks]) this.callObserver('onEvent', () => sink(event));
    if (event.type !== 'log') return;
    const level = typeof event.level === 'string' && LOG_LEVELS.has(event.level) ? event.level : 'info';
    const text = typeof event.message === 'string' ? event.message : JSON.stringify(event.message ?? '');
    const msg = text.length > MAX_AGENT_LOG_CHARS ? `${text.slice(0, MAX_AGENT_LOG_CHARS)}…` : text;
    this.log(level as LogEntry['level'], msg, { ...runFields(run), source: 'agent' });
  }

  protected log(level: LogEntry['level'], msg: string, fields: Record<string, unknown>): void {
    const entry: LogEntry = { ...fields, level, msg, component: 'supervisor' };
    try {
      this.logger?.log(entry);
    } catch {
      // A broken logger must not break supervision.
    }
    this.emitter.emit('log', entry);
  }

  /**
   * Supervision work nobody awaits. It should never fail; if a bug makes it, the run is failed
   * and the error logged instead of becoming an unhandled rejection that would end the daemon.
   */
  protected background(work: Promise<unknown>, run: RunRecord): void {
    work.catch((error: unknown) => {
      this.log('error', 'supervisor internal error', { ...runFields(run), error: String(error) });
      const ending: Ending = {
        state: 'failed',
        error: { code: 'crashed', message: 'supervisor internal error' },
      };
      if (run.host?.alive) void this.terminate(run, ending);
      else this.finish(run, ending.state, ending);
    });
  }

  /** Runs a caller's callback; one that throws is logged and does not disturb the run. */
  protected callObserver(name: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.listenerFailed(name, error);
    }
  }

  protected listenerFailed(event: string, error: unknown): void {
    const entry: LogEntry = { level: 'error', msg: 'supervisor listener threw', event, error: String(error) };
    try {
      this.logger?.log(entry);
    } catch {
      // ignored: see log()
    }
    // Not re-emitted on 'log' when the failing listener is a log listener (it would loop).
    if (event !== 'log') this.emitter.emit('log', entry);
  }
}

export function runFields(run: RunRecord): Record<string, unknown> {
  return { handle: run.handle, runId: run.runId, agent: run.profile.name };
}
