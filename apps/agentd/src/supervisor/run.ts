/**
 * One subagent run: its child process, its way from `starting` to a terminal state, its turn
 * timer and its events. The mode-specific parts are in PlainRun and ProtocolRun; the fleet
 * (admission, limits, totals) is the Supervisor's.
 */
import type { LogLevel } from '@agentd/rpc-frame';
import type { PreparedWorkspace } from '../workspace/workspace.js';
import { type ChildExit, ChildHost } from './child-host.js';
import type { EffectiveLimits } from './config-check.js';
import { EventRing } from './event-ring.js';
import {
  decidedOutcome,
  type ExitFacts,
  exitFacts,
  type FinishFields,
  type Outcome,
  spawnFailedOutcome,
} from './exit-outcome.js';
import type {
  PermissionBroker,
  PermissionDecision,
  PermissionRequest,
  PermissionSubject,
  RunEvent,
  RunUsage,
} from './run-event.js';
import {
  type Ending,
  isTerminal,
  newRunRecord,
  type RunIdentity,
  type RunRecord,
  type TerminalState,
  toStatus,
} from './run-record.js';
import { budgetExceeded } from './run-usage.js';
import { finishedWorkspace, liveWorkspace } from './run-workspace.js';
import { TypedEmitter } from './typed-emitter.js';
import type {
  AgentEvent,
  AgentProfile,
  PendingPermission,
  PermissionAnswerer,
  PlainTailLine,
  RunStarter,
  SubagentError,
  SubagentStatus,
} from './types.js';

/** What a run needs from its fleet. */
export interface RunContext {
  /** The limits in force now: a reload applies to the next turn and timer of a running session. */
  limits(): Readonly<EffectiveLimits>;
  log(level: LogLevel, msg: string, fields: Record<string, unknown>): void;
  /** A listener or a caller's callback threw; the run carries on. */
  listenerFailed(name: string, error: unknown): void;
  /** Decides the agents' permission requests. */
  readonly permissions: PermissionBroker;
}

export type RunListeners = {
  /** Every state change of the run, terminal included: the one place to observe it. */
  change: (run: Run) => void;
  /** The agent answered a turn (a one-shot run's only answer included). */
  turn: (run: Run) => void;
  /** An agent event: a protocol `event` notification, or an output line (a plain agent's, any agent's stderr). */
  event: (run: Run, event: AgentEvent) => void;
};

export abstract class Run {
  /** Resolves when the run reached a terminal state. */
  readonly done: Promise<void>;
  protected readonly record: RunRecord;
  protected readonly context: RunContext;
  protected host: ChildHost | undefined;
  /** Set once the end is decided (cancel, timeout, violation, graceful close); the exit completes it. */
  protected ending: Ending | undefined;
  private turnTimer: NodeJS.Timeout | undefined;
  private markDone = (): void => {};
  private readonly emitter: TypedEmitter<RunListeners>;
  /** Per-call event observers (a spawn's or a turn's caller). */
  private readonly sinks = new Set<(event: AgentEvent) => void>();
  /** Called after every change; used to wait for "running", "ready" or terminal. */
  private readonly watchers = new Set<() => void>();
  /** Per-call permission answerers (a spawn's or a turn's caller). */
  private readonly answerers = new Set<PermissionAnswerer>();
  /** Permission requests waiting for their decision, shown in the status. */
  private readonly pendingPermissions = new Map<string, PendingPermission>();
  /** The run's recent events (bounded), shown in its status. */
  private readonly recent = new EventRing();
  /** Aborted when the run ends: no permission request outlives it. */
  private readonly ended = new AbortController();
  /** The run's own worktree or copy, until it is summarised at the end. */
  private workspace: PreparedWorkspace | undefined;
  /** The end is decided and waits for the workspace's summary. */
  private settling = false;

  constructor(identity: RunIdentity, context: RunContext) {
    this.record = newRunRecord(identity);
    this.context = context;
    this.emitter = new TypedEmitter((event, error) => context.listenerFailed(String(event), error));
    this.done = new Promise((resolve) => {
      this.markDone = resolve;
    });
  }

  /** The command line this run's child is started with. */
  protected abstract childProfile(instruction: string): AgentProfile;
  /** Wires the started child's stdio: the mode's way of talking to it. */
  protected abstract attach(host: ChildHost, instruction: string): void;
  /** How the run ends when its child exits on its own (no ending decided, no spawn failure). */
  protected abstract exitOutcome(facts: ExitFacts): Outcome;

  get handle(): string {
    return this.record.handle;
  }

  get runId(): string {
    return this.record.runId;
  }

  get profile(): Readonly<AgentProfile> {
    return this.record.profile;
  }

  get warm(): boolean {
    return this.record.warm;
  }

  get timeoutMs(): number {
    return this.record.timeoutMs;
  }

  get startedBy(): Readonly<RunStarter> {
    return this.record.startedBy;
  }

  get turns(): number {
    return this.record.turns;
  }

  get state(): RunRecord['state'] {
    return this.record.state;
  }

  get endedAt(): Date | undefined {
    return this.record.endedAt;
  }

  /** A live run holds a child (or is about to): it counts against the concurrency limits. */
  get live(): boolean {
    return !isTerminal(this.record.state);
  }

  /** The run has ended but its child is still exiting (stdin closed, grace running). */
  get lingering(): boolean {
    return !this.live && this.host?.alive === true;
  }

  /** Resolves once the child is gone (at once when there never was one). */
  async childExited(): Promise<void> {
    await this.host?.exited;
  }

  /** Kills the child's process tree now, whatever state the run is in. */
  kill(): void {
    void this.host?.kill();
  }

  status(): SubagentStatus {
    return toStatus(this.record, {
      pid: this.host?.pid,
      tail: this.tail(),
      pendingPermissions: [...this.pendingPermissions.values()].map((p) => ({ ...p })),
      events: this.recent.list(),
    });
  }

  on<E extends keyof RunListeners>(event: E, listener: RunListeners[E]): this {
    this.emitter.on(event, listener);
    return this;
  }

  off<E extends keyof RunListeners>(event: E, listener: RunListeners[E]): this {
    this.emitter.off(event, listener);
    return this;
  }

  /** Adds a caller's event observer; returns its removal. */
  observe(sink: (event: AgentEvent) => void): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** Permission requests waiting for an answer now. */
  get pendingPermissionCount(): number {
    return this.pendingPermissions.size;
  }

  /** Adds a caller's permission answerer; returns its removal. */
  answerWith(answerer: PermissionAnswerer): () => void {
    this.answerers.add(answerer);
    return () => this.answerers.delete(answerer);
  }

  /** The run works in its own workspace (before `start`): summarised when it ends, in its final status. */
  workIn(workspace: PreparedWorkspace): void {
    this.workspace = workspace;
    this.record.workspace = liveWorkspace(workspace);
  }

  /** Resolves once `reached` holds (checked after every change). */
  until(reached: (run: Run) => boolean): Promise<void> {
    if (reached(this)) return Promise.resolve();
    return new Promise((resolve) => {
      const watcher = (): void => {
        if (!reached(this)) return;
        this.watchers.delete(watcher);
        resolve();
      };
      this.watchers.add(watcher);
    });
  }

  /** Starts the child; the run ends once it is gone. */
  start(instruction: string): void {
    const limits = this.context.limits();
    let host: ChildHost;
    try {
      host = new ChildHost(this.childProfile(instruction), {
        stderrTailBytes: limits.stderrTailBytes,
        killGraceMs: limits.killGraceMs,
      });
    } catch (error) {
      // spawn() throws synchronously for some bad inputs (e.g. a NUL byte in an argument).
      this.end(spawnFailedOutcome(this.record.profile.command, (error as Error).message));
      return;
    }
    this.host = host;
    const started = host.started.then((ok) => {
      if (!ok || this.record.state !== 'starting') return;
      // childPid: `pid` is the daemon's own, on every log line.
      this.log('debug', 'subagent running', { childPid: host.pid });
      this.setState('running');
    });
    this.background(started);
    this.background(host.exited.then((exit) => this.onExit(exit)));
    this.attach(host, instruction);
  }

  /** Kills the run's whole process tree; resolves when it is gone. A finished run stays as it is. */
  async cancel(reason: string): Promise<void> {
    if (!this.live) return;
    this.log('info', 'subagent cancel requested', { reason });
    await this.terminate({
      state: 'cancelled',
      reason,
      error: { code: 'cancelled', message: `cancelled: ${reason}` },
    });
  }

  /** Decides how the run ends, then kills its process tree; it ends when the child is gone. */
  protected terminate(ending: Ending): Promise<void> {
    if (!this.live) return this.done;
    if (this.ending === undefined) this.ending = ending;
    this.stopTimers();
    if (this.host === undefined) this.finish(ending.state, ending);
    else void this.host.kill();
    return this.done;
  }

  protected end(outcome: Outcome): void {
    this.finish(outcome.state, outcome.fields);
  }

  protected finish(state: TerminalState, fields: FinishFields): void {
    if (!this.live || this.settling) return;
    if (this.workspace !== undefined) {
      this.endInWorkspace(this.workspace, state, fields);
      return;
    }
    this.stopTimers();
    const record = this.record;
    record.state = state;
    record.endedAt = new Date();
    record.busy = false;
    if (fields.result !== undefined) record.result = fields.result;
    if (fields.output !== undefined) record.output = fields.output;
    if (fields.error !== undefined) record.error = fields.error;
    else if (state === 'succeeded' && !record.warm) delete record.error;
    if (fields.reason !== undefined) record.reason = fields.reason;
    this.ended.abort();
    // The polite end of a child still running (its stdout closed the run); the fleet waits for it.
    if (this.host?.alive) void this.host.shutdown();
    this.log(state === 'succeeded' ? 'info' : 'warning', 'subagent ended', {
      state,
      ...(record.error ? { error: record.error.message } : {}),
    });
    this.changed();
    this.markDone();
  }

  /**
   * A run with a workspace ends once its agent is gone (stdin closed, killed after the grace) and
   * the workspace is summarised (`keep` applied): its terminal status carries the summary.
   */
  private endInWorkspace(workspace: PreparedWorkspace, state: TerminalState, fields: FinishFields): void {
    this.workspace = undefined;
    this.settling = true;
    this.stopTimers();
    const host = this.host;
    if (host?.alive) void host.shutdown();
    const summarised = (async () => {
      try {
        await host?.exited;
        const summary = await finishedWorkspace(workspace);
        this.record.workspace = summary;
        if (summary.state === 'failed')
          this.log('warning', 'run workspace not summarised', { error: summary.error?.message });
      } finally {
        this.settling = false;
      }
      this.finish(state, fields);
    })();
    this.background(summarised);
  }

  protected setState(state: RunRecord['state']): void {
    if (!this.live) return;
    this.record.state = state;
    this.changed();
  }

  protected armTimer(timeoutMs: number): void {
    this.clearTimer();
    this.turnTimer = setTimeout(() => {
      const error: SubagentError = { code: 'timeout', message: `timed out after ${timeoutMs} ms` };
      this.log('warning', 'subagent timed out', { timeoutMs });
      void this.terminate({ state: 'timed_out', error });
    }, timeoutMs);
  }

  protected clearTimer(): void {
    if (this.turnTimer !== undefined) clearTimeout(this.turnTimer);
    this.turnTimer = undefined;
  }

  /** Every timer of the run; called when its end is decided. */
  protected stopTimers(): void {
    this.clearTimer();
  }

  /** The live output tail (the lines the mode streams). */
  protected tail(): PlainTailLine[] | undefined {
    return undefined;
  }

  /** A run whose end was decided before its child exited. */
  protected decided(ending: Ending, facts: ExitFacts): Outcome {
    return decidedOutcome(ending, facts);
  }

  protected emitTurn(): void {
    this.emitter.emit('turn', this);
  }

  /**
   * An agent asks before a tool runs: the broker decides (exactly once), and the request and its
   * decision are run events and log lines. `signal` aborts with the turn it belongs to.
   */
  protected async requestPermission(
    request: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision> {
    this.emitEvent({ type: 'permission_request', request } satisfies RunEvent);
    this.log('info', 'permission requested', { requestId: request.requestId, tool: request.toolCall.title });
    const subject: PermissionSubject = {
      handle: this.handle,
      runId: this.runId,
      agent: this.record.profile.name,
      ...(this.record.profile.permissions === undefined ? {} : { policy: this.record.profile.permissions }),
      answerers: [...this.answerers],
    };
    const aborted = AbortSignal.any([signal, this.ended.signal]);
    let decision: PermissionDecision;
    if (aborted.aborted) decision = { outcome: 'cancelled', by: 'cancelled' };
    else {
      const { requestId, toolCall, options } = request;
      this.pendingPermissions.set(requestId, {
        requestId,
        toolCall,
        options,
        since: new Date().toISOString(),
      });
      this.changed();
      try {
        decision = await this.context.permissions.decide(subject, request, aborted);
      } finally {
        this.pendingPermissions.delete(requestId);
        if (this.live) this.changed();
      }
    }
    this.emitEvent({
      type: 'permission_decision',
      requestId: request.requestId,
      decision,
    } satisfies RunEvent);
    this.log('info', 'permission decided', {
      requestId: request.requestId,
      outcome: decision.outcome === 'selected' ? decision.kind : 'cancelled',
      by: decision.by,
    });
    return decision;
  }

  /** The agent's usage so far (totals): a run event, the status, and the budget check. */
  protected recordUsage(usage: RunUsage): void {
    this.record.usage = usage;
    this.emitEvent({ type: 'usage', usage } satisfies RunEvent);
    const over = budgetExceeded(this.record.budget, usage);
    if (over === undefined || !this.live || this.ending !== undefined) return;
    this.log('warning', 'subagent over budget', { reason: over });
    void this.terminate({
      state: 'failed',
      error: { code: 'budget_exceeded', message: `budget exceeded: ${over}`, usage: { ...usage } },
    });
  }

  protected emitEvent(event: AgentEvent): void {
    this.recent.push(event);
    this.emitter.emit('event', this, event);
    for (const sink of [...this.sinks]) this.callObserver('onEvent', () => sink(event));
  }

  protected log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    this.context.log(level, msg, { ...runFields(this.record), ...fields });
  }

  /**
   * Supervision work nobody awaits. It should never fail; if a bug makes it, the run is failed
   * and the error logged instead of becoming an unhandled rejection that would end the daemon.
   */
  protected background(work: Promise<unknown>): void {
    work.catch((error: unknown) => {
      this.log('error', 'supervisor internal error', { error: String(error) });
      const ending: Ending = {
        state: 'failed',
        error: { code: 'crashed', message: 'supervisor internal error' },
      };
      if (this.host?.alive) void this.terminate(ending);
      else this.finish(ending.state, ending);
    });
  }

  /** Runs a caller's callback; one that throws is logged and does not disturb the run. */
  callObserver(name: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.context.listenerFailed(name, error);
    }
  }

  private changed(): void {
    this.emitter.emit('change', this);
    for (const watcher of [...this.watchers]) watcher();
  }

  private async onExit(exit: ChildExit): Promise<void> {
    if (!this.live) return;
    // Let an answer that arrived just before the exit settle first.
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.live) return;
    const facts = exitFacts(exit);
    if (this.ending !== undefined) return this.end(this.decided(this.ending, facts));
    if (exit.spawnError !== undefined)
      return this.end(spawnFailedOutcome(this.record.profile.command, exit.spawnError));
    this.end(this.exitOutcome(facts));
  }
}

/**
 * What names a run in log lines (every level, and so agent://events): its run id, never its
 * handle. The handle is a capability; logs are read by people and tools that must not act on runs.
 */
export function runFields(record: Pick<RunRecord, 'runId' | 'profile'>): Record<string, unknown> {
  return { runId: record.runId, agent: record.profile.name };
}
