/** The fleet of subagent runs: admission, limits, spawn, list, pause, drain, totals, log. A run is `Run` (run.ts). */
import { LocalError, type LogLevel } from '@agentd/rpc-frame';
import { defaultStateDir } from '../history/history-config.js';
import type { AgentdErrorCode } from '../local-errors.js';
import { startRunSpan } from '../telemetry/run-span.js';
import { type PruneReport, pruneWorkspaces } from '../workspace/workspace.js';
import { admitRun, checkText, runTimeout, type TrackedRun } from './admission.js';
import { checkConfig, type EffectiveConfig, MAX_TIMER_MS } from './config-check.js';
import { ConversationRun } from './conversation-run.js';
import {
  createRun,
  firstTurn,
  type ResumableSession,
  type ResumeSource,
  resumeRequest,
} from './create-run.js';
import { type PermissionAnswer, PolicyBroker } from './permission-broker.js';
import { type Run, type RunContext, runFields } from './run.js';
import type { PermissionDecision } from './run-event.js';
import { isTerminal, type TerminalState } from './run-record.js';
import { finishedWorkspace, needsPlace, placeRun, type RunPlace, requestedDir } from './run-workspace.js';
import { liveCounts, zeroTotals } from './supervisor-counts.js';
import { SupervisorLog } from './supervisor-log.js';
import { TypedEmitter } from './typed-emitter.js';
import type {
  AgentEvent,
  LogEntry,
  PermissionAnswerer,
  RunStarter,
  SendOptions,
  SendResult,
  SpawnObserver,
  SpawnRequest,
  SubagentStatus,
  SupervisorConfig,
  SupervisorOptions,
  SupervisorSnapshot,
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

/** Who starts a run the request does not attribute: the process embedding the supervisor. */
const EMBEDDER: RunStarter = Object.freeze({ trust: 'management', principal: 'embedder', share: 'embedder' });

const TOTAL_KEY: Record<TerminalState, keyof SupervisorTotals> = {
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  timed_out: 'timedOut',
};

export class Supervisor {
  private config: EffectiveConfig;
  /** Insertion order is start order, which eviction relies on for ties. */
  private readonly runs = new Map<string, Run>();
  /** Finished runs whose child is still exiting (stdin closed, grace running). */
  private readonly lingering = new Set<Run>();
  /** Admitted runs whose workspace is being made: they hold their place in the pools. */
  private readonly preparing = new Set<TrackedRun>();
  /** Where runs' workspaces live. */
  private readonly stateDir: string;
  private readonly emitter: TypedEmitter<SupervisorListeners>;
  private readonly journal: SupervisorLog;
  private readonly context: RunContext;
  /** The default broker (profile policy, callers, operators); undefined when the options bring their own. */
  private readonly broker: PolicyBroker | undefined;
  private paused = false;
  private draining = false;
  private ready = true;
  private disposed = false;
  private resumable: ResumeSource | undefined;
  private readonly totals: SupervisorTotals = zeroTotals();

  constructor(options: SupervisorOptions) {
    this.config = checkConfig(options);
    this.stateDir = options.stateDir ?? defaultStateDir();
    this.journal = new SupervisorLog(options.logger, (entry) => this.emitter.emit('log', entry));
    this.emitter = new TypedEmitter((event, error) => this.listenerFailed(String(event), error));
    const broker = options.permissions === undefined ? new PolicyBroker() : undefined;
    this.broker = broker;
    this.context = {
      limits: () => this.config.limits,
      log: (level, msg, fields) => this.log(level, msg, fields),
      listenerFailed: (name, error) => this.listenerFailed(name, error),
      permissions: options.permissions ?? (broker as PolicyBroker),
    };
  }

  on<E extends keyof SupervisorListeners>(event: E, listener: SupervisorListeners[E]): this {
    this.emitter.on(event, listener);
    return this;
  }

  off<E extends keyof SupervisorListeners>(event: E, listener: SupervisorListeners[E]): this {
    this.emitter.off(event, listener);
    return this;
  }

  /**
   * Starts a subagent. Resolves at the terminal state (sync), once the child runs (`async`), or
   * after the first turn with state `ready` (`warm`). A run that fails still resolves (its status
   * says why); refusals throw a LocalError. Aborting `signal` cancels the run. `observer` sees the
   * handle as soon as the run is admitted and the agent's events until this call resolves.
   */
  async spawn(
    request: SpawnRequest,
    signal?: AbortSignal,
    observer: SpawnObserver = {},
  ): Promise<SubagentStatus> {
    if (signal?.aborted)
      throw new LocalError<AgentdErrorCode>('aborted', 'the spawn was aborted before it started');
    return this.launch(await this.admit(request, signal), request, signal, observer);
  }

  private async launch(
    run: Run,
    request: SpawnRequest,
    signal: AbortSignal | undefined,
    observer: SpawnObserver,
  ): Promise<SubagentStatus> {
    this.totals.spawned += 1;
    this.track(run);
    this.log('info', 'subagent starting', { ...runFields(run), warm: run.warm, mode: run.profile.mode });
    this.onChange(run);
    run.callObserver('onStart', () => observer.onStart?.(run.status()));
    const unobserve = observer.onEvent === undefined ? undefined : run.observe(observer.onEvent);
    const unanswer = observer.onPermission === undefined ? undefined : run.answerWith(observer.onPermission);
    const telemetry = startRunSpan({ runId: run.runId, agent: run.profile.name }, () =>
      run.start(request.instruction),
    );
    if (telemetry !== undefined) {
      run.on('event', (_from, event) => telemetry.record(event));
      void run.until((r) => isTerminal(r.state)).then(() => telemetry.end(run.state));
    }
    const reached = request.async
      ? (r: Run) => r.state !== 'starting'
      : run.warm
        ? (r: Run) => r.state === 'ready' || isTerminal(r.state)
        : (r: Run) => isTerminal(r.state);
    const onAbort = (): void => void run.cancel('aborted by the caller');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await run.until(reached);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      unobserve?.();
      unanswer?.();
    }
    return run.status();
  }

  /**
   * Sends one turn to a ready warm session and resolves with the agent's reply. An agent error is
   * a reply with `isError` (the session stays ready). Aborting `signal` rejects with `aborted` and
   * asks the agent to stop (`cancel` notification); the session stays busy until it answers.
   * `options.timeoutMs` bounds this turn (default: the session's timeout).
   */
  async send(
    handle: string,
    message: string,
    signal?: AbortSignal,
    options: SendOptions = {},
  ): Promise<SendResult> {
    if (signal?.aborted)
      throw new LocalError<AgentdErrorCode>('aborted', 'the turn was aborted before it was sent');
    // A conversation whose process is gone (a restart) continues in a new one.
    const stored = this.runs.has(handle) ? undefined : await this.resumable?.(handle);
    if (stored !== undefined && !this.runs.has(handle))
      return this.continueSession(stored, message, signal, options);
    const session = this.session(handle);
    session.checkReady();
    this.checkAdmission('turn');
    const { limits } = this.config;
    const text = checkText(message, 'message', limits.maxInstructionBytes);
    // A restricted starter's cap holds for every turn, whoever holds the handle now; a restricted
    // sender gets it too, on anyone's session.
    const asker = options.sentBy?.trust === 'restricted' ? options.sentBy : session.startedBy;
    const timeoutMs = runTimeout(options.timeoutMs, session.timeoutMs, limits, asker);
    return session.send(text, timeoutMs, signal, options);
  }

  /** Where `send` finds a conversation whose process is gone (the daemon's run store). */
  resumeFrom(source: ResumeSource): void {
    this.resumable = source;
  }

  /** The conversation continues in a new process, its message the first turn, same handle and run id. */
  private async continueSession(
    stored: ResumableSession,
    message: string,
    signal: AbortSignal | undefined,
    options: SendOptions,
  ): Promise<SendResult> {
    const request = resumeRequest(stored, message, options);
    return firstTurn(await this.launch(await this.admit(request, signal, stored), request, signal, options));
  }

  /**
   * Answers a run's pending permission request (an operator's answer, or a caller's that came back
   * later): an option id the agent offered, or `{allow, always}`. Exactly one answer counts: a later
   * one is refused with `already_decided`; a request that never was, with `unknown_request`.
   */
  approve(
    handle: string,
    requestId: string,
    answer: PermissionAnswer,
    by: 'operator' | 'caller' = 'operator',
  ): PermissionDecision {
    const run = this.get(handle);
    if (this.broker === undefined)
      throw new LocalError<AgentdErrorCode>(
        'invalid_request',
        'permission requests are decided by the configured broker',
      );
    if (typeof requestId !== 'string' || requestId.length === 0)
      throw new LocalError<AgentdErrorCode>('invalid_request', 'requestId must be a non-empty string');
    const decision = this.broker.answer(handle, requestId, answer, by);
    this.log('info', `permission answered by ${by === 'caller' ? 'the caller' : 'an operator'}`, {
      ...runFields(run),
      requestId,
    });
    return decision;
  }

  status(handle: string): SubagentStatus {
    return this.get(handle).status();
  }

  /** A caller following a run (attach) answers its permission requests; returns the removal. */
  answerWith(handle: string, answerer: PermissionAnswerer): () => void {
    return this.get(handle).answerWith(answerer);
  }

  /**
   * The run with this run id, if it is still tracked. A run id is a name, not a capability: the
   * caller decides who may see the answer (self-mcp/run-access.ts).
   */
  statusByRunId(runId: string): SubagentStatus | undefined {
    for (const run of this.runs.values()) if (run.runId === runId) return run.status();
    return undefined;
  }

  /** Kills the run's whole process tree; resolves when it is gone. A finished run is returned unchanged. */
  async cancel(handle: string, reason = 'cancelled'): Promise<SubagentStatus> {
    const run = this.get(handle);
    await run.cancel(reason);
    return run.status();
  }

  /** Ends a ready warm session gracefully (`shutdown`, then stdin EOF): state `succeeded`. */
  async closeSession(handle: string): Promise<SubagentStatus> {
    const session = this.session(handle);
    if (!session.live) return session.status();
    if (session.answering)
      throw new LocalError<AgentdErrorCode>('busy', 'the session is still answering a turn');
    await session.close('closed by request');
    return session.status();
  }

  async cancelAll(reason = 'cancelled by operator'): Promise<void> {
    await Promise.all(this.liveRuns().map((run) => run.cancel(reason)));
  }

  /** Every tracked run, oldest first. */
  list(): SubagentStatus[] {
    return [...this.runs.values()].map((run) => run.status());
  }

  snapshot(): SupervisorSnapshot {
    const { running, warm, pendingPermissions } = liveCounts(this.liveRuns());
    return {
      paused: this.paused,
      draining: this.draining,
      ready: this.ready && !this.draining,
      running,
      warm,
      tracked: this.runs.size,
      pendingPermissions,
      totals: { ...this.totals },
      limits: { ...this.config.limits },
      defaultAgent: this.config.defaultAgent,
      agents: [...this.config.profiles.keys()],
    };
  }

  /** Refuses new spawns and turns (`paused`); running children carry on. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.log('info', 'supervisor paused', {});
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.log('info', 'supervisor resumed', {});
  }

  /** Lame duck: flips readiness only (work is still accepted). Becoming ready while draining is refused. */
  setReady(ready: boolean): void {
    if (ready && this.draining)
      throw new LocalError<AgentdErrorCode>('draining', 'cannot become ready while draining');
    if (this.ready === ready) return;
    this.ready = ready;
    this.log('info', ready ? 'supervisor ready' : 'supervisor lame duck (not ready)', {});
  }

  /**
   * No new spawns or turns; idle warm sessions are closed; running work may finish until
   * `deadlineMs` from now, then whatever is left is cancelled. Results stay readable afterwards.
   */
  async drain(deadlineMs: number): Promise<void> {
    if (!Number.isSafeInteger(deadlineMs) || deadlineMs < 0 || deadlineMs > MAX_TIMER_MS) {
      throw new LocalError<AgentdErrorCode>(
        'invalid_request',
        `deadlineMs must be an integer from 0 to ${MAX_TIMER_MS}`,
      );
    }
    this.draining = true;
    const live = this.liveRuns();
    this.log('info', 'supervisor draining', { live: live.length, deadlineMs });
    for (const run of live) if (run instanceof ConversationRun && run.idle) void run.close('draining');
    let timer: NodeJS.Timeout | undefined;
    const expired = await Promise.race([
      Promise.all(live.map((run) => run.done)).then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if (expired) await this.cancelAll('drain deadline reached');
    await Promise.all([...this.lingering].map((run) => run.childExited()));
    this.log('info', 'supervisor drained', { cancelledAtDeadline: expired });
  }

  /** Applies new profiles and limits atomically; an invalid config throws `invalid_config` and changes nothing. */
  reconfigure(config: SupervisorConfig): void {
    let next: EffectiveConfig;
    try {
      next = checkConfig(config);
    } catch (error) {
      this.log('warning', 'supervisor configuration rejected', { reason: (error as Error).message });
      throw error;
    }
    this.config = next;
    this.log('info', 'supervisor configuration applied', { agents: [...next.profiles.keys()] });
  }

  /** Removes the workspaces of runs no longer live (workspace/workspace.ts `pruneWorkspaces`). */
  pruneWorkspaces(): Promise<PruneReport> {
    return pruneWorkspaces({ stateDir: this.stateDir });
  }

  /** Cancels everything, kills lingering children and refuses all further work. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.draining = true;
    await this.cancelAll('supervisor shut down');
    for (const run of this.lingering) run.kill();
    await Promise.all([...this.lingering].map((run) => run.childExited()));
  }

  // ---- admission ------------------------------------------------------------------------------

  /**
   * Admits the run, then makes its workspace (holding its place in the pools meanwhile). Every
   * refusal (a workspace that cannot be made included) is counted and logged, then thrown.
   */
  private async admit(request: SpawnRequest, signal?: AbortSignal, revive?: ResumableSession): Promise<Run> {
    try {
      this.checkAdmission('spawn');
      const dir = requestedDir((request as SpawnRequest | null)?.cwd);
      const { identity, evicted } = admitRun(
        request,
        this.config,
        { tracked: this.runs, preparing: this.preparing, starter: EMBEDDER },
        revive,
      );
      for (const run of evicted) {
        this.totals.evicted += 1;
        this.log('debug', 'finished run evicted', runFields(run));
      }
      // A run is tracked the moment it is admitted, so spawns arriving at once see each other.
      if (!needsPlace(identity.profile, dir))
        return this.tracked(createRun(identity, this.context, revive?.sessionId));
      const held = { ...identity, live: true, endedAt: undefined };
      this.preparing.add(held);
      let place: RunPlace;
      try {
        place = await placeRun(identity.profile, identity.runId, dir, this.stateDir);
      } finally {
        this.preparing.delete(held);
      }
      if (this.draining || signal?.aborted === true) {
        // Shut down or given up on while its workspace was made: nothing ran in it.
        if (place.workspace !== undefined) await finishedWorkspace(place.workspace);
        this.checkAdmission('spawn');
        throw new LocalError<AgentdErrorCode>('aborted', 'the spawn was aborted before it started');
      }
      const run = createRun({ ...identity, profile: place.profile }, this.context, revive?.sessionId);
      if (place.workspace !== undefined) run.workIn(place.workspace);
      return this.tracked(run);
    } catch (error) {
      this.totals.refused += 1;
      const code = error instanceof LocalError ? error.code : 'error';
      this.log('warning', 'spawn refused', { code, reason: (error as Error).message });
      throw error;
    }
  }

  private tracked(run: Run): Run {
    this.runs.set(run.handle, run);
    return run;
  }

  private checkAdmission(what: 'spawn' | 'turn'): void {
    if (this.disposed) throw new LocalError<AgentdErrorCode>('draining', 'the supervisor has shut down');
    if (this.draining)
      throw new LocalError<AgentdErrorCode>('draining', `draining: no new ${what}s are accepted`);
    if (this.paused)
      throw new LocalError<AgentdErrorCode>('paused', `paused: no new ${what}s are accepted until resume`);
  }

  // ---- the runs -------------------------------------------------------------------------------

  private get(handle: string): Run {
    const run = typeof handle === 'string' ? this.runs.get(handle) : undefined;
    if (run === undefined) {
      throw new LocalError<AgentdErrorCode>(
        'unknown_handle',
        'unknown handle: it never existed, or its run finished and was evicted',
      );
    }
    return run;
  }

  /** The warm session behind a handle; a one-shot run is refused. */
  private session(handle: string): ConversationRun {
    const run = this.get(handle);
    if (!(run instanceof ConversationRun) || !run.warm)
      throw new LocalError<AgentdErrorCode>('not_warm', 'this handle is a one-shot run, not a warm session');
    return run;
  }

  private liveRuns(): Run[] {
    return [...this.runs.values()].filter((run) => run.live);
  }

  /** The fleet's view of one run: totals, lingering children, and the public events. */
  private track(run: Run): void {
    run.on('change', (changed) => this.onChange(changed));
    run.on('event', (from, event) => this.emitter.emit('event', from.handle, event));
    run.on('turn', (from) => {
      this.totals.turns += 1;
      if (!from.warm) return;
      this.emitter.emit('turn', from.handle, from.turns);
      if (this.draining && from instanceof ConversationRun) void from.close('draining');
    });
  }

  private onChange(run: Run): void {
    const state = run.state;
    if (isTerminal(state)) {
      this.totals[TOTAL_KEY[state]] += 1;
      if (run.lingering) {
        this.lingering.add(run);
        void run.childExited().then(() => this.lingering.delete(run));
      }
    }
    this.emitter.emit('status', run.status());
  }

  private log(level: LogLevel, msg: string, fields: Record<string, unknown>): void {
    this.journal.log(level, msg, fields);
  }

  private listenerFailed(event: string, error: unknown): void {
    this.journal.listenerFailed(event, error);
  }
}
