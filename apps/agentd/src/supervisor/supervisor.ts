/** The Supervisor: admission, limits, handles and lifecycle of subagent runs and warm sessions. */
// The shared state and the rules for ending a run are in supervisor-base.ts.
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import { checkText, checkTimeout } from './admission.js';
import { type ChildExit, ChildHost } from './child-host.js';
import { checkConfig, type EffectiveConfig, MAX_TIMER_MS } from './config-check.js';
import {
  agentError,
  decidedOutcome,
  endedDuringTurn,
  exitFacts,
  plainOutcome,
  protocolOutcome,
  spawnFailedOutcome,
  stripFinalNewline,
  tooLarge,
} from './exit-outcome.js';
import { plainInvocation, startPlainRun } from './plain-run.js';
import { ProtocolClient, type TurnOutcome } from './protocol-client.js';
import { isLive, isTerminal, outputOf, type RunRecord, toStatus } from './run-record.js';
import { runFields, SupervisorBase } from './supervisor-base.js';
import type {
  SendOptions,
  SendResult,
  SpawnObserver,
  SpawnRequest,
  SubagentStatus,
  SupervisorConfig,
  SupervisorSnapshot,
} from './types.js';

export class Supervisor extends SupervisorBase {
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
    if (signal?.aborted) throw new LocalError('aborted', 'the spawn was aborted before it started');
    const run = this.admit(request);
    this.runs.set(run.handle, run);
    this.totals.spawned += 1;
    this.log('info', 'subagent starting', { ...runFields(run), warm: run.warm, mode: run.profile.mode });
    this.emitStatus(run);
    this.callObserver('onStart', () => observer.onStart?.(toStatus(run)));
    const sink = observer.onEvent;
    if (sink !== undefined) run.eventSinks.add(sink);
    this.launch(run, request.instruction);
    const reached = request.async
      ? (r: RunRecord) => r.state !== 'starting'
      : run.warm
        ? (r: RunRecord) => r.state === 'ready' || isTerminal(r.state)
        : (r: RunRecord) => isTerminal(r.state);
    const onAbort = (): void => this.background(this.cancel(run.handle, 'aborted by the caller'), run);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.waitFor(run, reached);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (sink !== undefined) run.eventSinks.delete(sink);
    }
    return toStatus(run);
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
    if (signal?.aborted) throw new LocalError('aborted', 'the turn was aborted before it was sent');
    const run = this.get(handle);
    if (!run.warm) throw new LocalError('not_warm', 'this handle is a one-shot run, not a warm session');
    if (isTerminal(run.state) || run.ending !== undefined) {
      throw new LocalError('session_closed', `the session has ended (${run.ending?.state ?? run.state})`);
    }
    if (run.busy || run.state !== 'ready')
      throw new LocalError('busy', 'the session is still answering a turn');
    this.checkAdmission('turn');
    const { limits } = this.config;
    const text = checkText(message, 'message', limits.maxInstructionBytes);
    const timeoutMs = checkTimeout(options.timeoutMs ?? run.timeoutMs, limits.maxTimeoutMs);
    run.busy = true;
    this.clearIdle(run);
    this.setState(run, 'running');
    const sink = options.onEvent;
    if (sink !== undefined) run.eventSinks.add(sink);
    const work = this.sendTurn(run, text, timeoutMs).finally(() => {
      if (sink !== undefined) run.eventSinks.delete(sink);
    });
    if (signal === undefined) return work;
    return this.raceAbort(run, work, signal);
  }

  status(handle: string): SubagentStatus {
    return toStatus(this.get(handle));
  }

  /** The run with this public run id, if it is still tracked (run ids are not capabilities: no handle needed). */
  statusByRunId(runId: string): SubagentStatus | undefined {
    for (const run of this.runs.values()) if (run.runId === runId) return toStatus(run);
    return undefined;
  }

  /** Kills the run's whole process tree; resolves when it is gone. A finished run is returned unchanged. */
  async cancel(handle: string, reason = 'cancelled'): Promise<SubagentStatus> {
    const run = this.get(handle);
    if (isTerminal(run.state)) return toStatus(run);
    this.log('info', 'subagent cancel requested', { ...runFields(run), reason });
    await this.terminate(run, {
      state: 'cancelled',
      reason,
      error: { code: 'cancelled', message: `cancelled: ${reason}` },
    });
    return toStatus(run);
  }

  /** Ends a ready warm session gracefully (`shutdown`, then stdin EOF): state `succeeded`. */
  async closeSession(handle: string): Promise<SubagentStatus> {
    const run = this.get(handle);
    if (!run.warm) throw new LocalError('not_warm', 'this handle is a one-shot run, not a warm session');
    if (isTerminal(run.state)) return toStatus(run);
    if (run.busy || run.state !== 'ready')
      throw new LocalError('busy', 'the session is still answering a turn');
    await this.endSession(run, 'closed by request');
    return toStatus(run);
  }

  async cancelAll(reason = 'cancelled by operator'): Promise<void> {
    const live = [...this.runs.values()].filter(isLive);
    await Promise.all(live.map((run) => this.cancel(run.handle, reason)));
  }

  /** Every tracked run, oldest first. */
  list(): SubagentStatus[] {
    return [...this.runs.values()].map(toStatus);
  }

  snapshot(): SupervisorSnapshot {
    let running = 0;
    let warm = 0;
    for (const run of this.runs.values()) {
      if (!isLive(run)) continue;
      if (run.warm) warm += 1;
      else running += 1;
    }
    return {
      paused: this.paused,
      draining: this.draining,
      ready: this.ready && !this.draining,
      running,
      warm,
      tracked: this.runs.size,
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
    if (ready && this.draining) throw new LocalError('draining', 'cannot become ready while draining');
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
      throw new LocalError('invalid_request', `deadlineMs must be an integer from 0 to ${MAX_TIMER_MS}`);
    }
    this.draining = true;
    const live = [...this.runs.values()].filter(isLive);
    this.log('info', 'supervisor draining', { live: live.length, deadlineMs });
    for (const run of live) {
      if (run.warm && run.state === 'ready' && run.ending === undefined)
        void this.endSession(run, 'draining');
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = await Promise.race([
      Promise.all(live.map((run) => run.done)).then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if (expired) await this.cancelAll('drain deadline reached');
    await Promise.all([...this.lingering].map((host) => host.exited));
    this.log('info', 'supervisor drained', { cancelledAtDeadline: expired });
  }

  /** Applies new profiles and limits atomically; an invalid config throws `invalid_config` and changes nothing. */
  reconfigure(config: SupervisorConfig): void {
    let next: EffectiveConfig;
    try {
      next = checkConfig(config);
    } catch (error) {
      this.log('warn', 'supervisor configuration rejected', { reason: (error as Error).message });
      throw error;
    }
    this.config = next;
    this.log('info', 'supervisor configuration applied', { agents: [...next.profiles.keys()] });
  }

  /** Cancels everything, kills lingering children and refuses all further work. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.draining = true;
    await this.cancelAll('supervisor shut down');
    for (const host of this.lingering) void host.kill();
    await Promise.all([...this.lingering].map((host) => host.exited));
  }

  // ---- running --------------------------------------------------------------------------------

  protected launch(run: RunRecord, instruction: string): void {
    const { limits } = this.config;
    let host: ChildHost;
    const plain = run.profile.mode === 'plain' ? plainInvocation(run.profile, instruction) : undefined;
    try {
      host = new ChildHost(plain?.profile ?? run.profile, {
        stderrTailBytes: limits.stderrTailBytes,
        killGraceMs: limits.killGraceMs,
      });
    } catch (error) {
      // spawn() throws synchronously for some bad inputs (e.g. a NUL byte in an argument).
      this.end(run, spawnFailedOutcome(run.profile.command, (error as Error).message));
      return;
    }
    run.host = host;
    const started = host.started.then((ok) => {
      if (!ok || run.state !== 'starting') return;
      // childPid: `pid` is the daemon's own, on every log line.
      this.log('debug', 'subagent running', { ...runFields(run), childPid: host.pid });
      this.setState(run, 'running');
    });
    this.background(started, run);
    this.background(
      host.exited.then((exit) => this.onExit(run, exit)),
      run,
    );
    if (plain !== undefined) this.startPlain(run, host, plain.stdin);
    else this.startProtocol(run, host, instruction);
  }

  protected startPlain(run: RunRecord, host: ChildHost, stdin: string): void {
    const max = this.config.limits.maxOutputBytes;
    const plain = startPlainRun(host, stdin, {
      maxOutputBytes: max,
      onEvent: (event) => this.streamEvent(run, event),
      onOverflow: () => void this.terminate(run, tooLarge(max)),
    });
    run.collectOutput = plain.output;
    run.tail = plain.tail;
    this.armTimer(run, run.timeoutMs);
  }

  protected startProtocol(run: RunRecord, host: ChildHost, instruction: string): void {
    run.client = new ProtocolClient(host.child.stdout, host.child.stdin, this.config.limits.maxOutputBytes, {
      onEvent: (event) => this.onAgentEvent(run, event),
      onViolation: (reason, code) =>
        void this.terminate(run, { state: 'failed', error: { code, message: reason } }),
      onWarning: (message) => this.log('warn', message, runFields(run)),
    });
    this.background(this.firstTurn(run, instruction), run);
  }

  protected async firstTurn(run: RunRecord, instruction: string): Promise<void> {
    const params: JsonObject = {
      instruction,
      runId: run.runId,
      agent: run.profile.name,
      warm: run.warm,
      timeoutMs: run.timeoutMs,
    };
    const outcome = await this.turn(run, 'run', params);
    if (outcome === undefined) return;
    if (run.warm) {
      this.completeTurn(run, outcome);
      return;
    }
    run.turns = 1;
    this.totals.turns += 1;
    if (outcome.ok)
      this.finish(run, 'succeeded', { result: outcome.result, output: outputOf(outcome.result) });
    else this.finish(run, 'failed', { error: agentError(outcome.error) });
  }

  protected async sendTurn(run: RunRecord, message: string, timeoutMs: number): Promise<SendResult> {
    const outcome = await this.turn(run, 'turn', { message, turn: run.turns + 1, timeoutMs }, timeoutMs);
    if (outcome === undefined) {
      await run.done;
      throw endedDuringTurn(run);
    }
    this.completeTurn(run, outcome);
    return outcome.ok
      ? {
          handle: run.handle,
          turn: run.turns,
          reply: outcome.result,
          isError: false,
          output: outputOf(outcome.result),
        }
      : {
          handle: run.handle,
          turn: run.turns,
          reply: outcome.error,
          isError: true,
          output: outcome.error.message,
        };
  }

  protected async raceAbort(
    run: RunRecord,
    work: Promise<SendResult>,
    signal: AbortSignal,
  ): Promise<SendResult> {
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        if (run.turnId !== undefined)
          run.client?.notify('cancel', { id: run.turnId, reason: 'aborted by the caller' });
        reject(
          new LocalError('aborted', 'the caller stopped waiting; the agent was asked to cancel the turn'),
        );
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    work.catch(() => {}); // the turn may still fail after the caller left
    try {
      return await Promise.race([work, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** One request to the agent, under the run's timeout; undefined when the run ended instead. */
  protected async turn(
    run: RunRecord,
    method: string,
    params: JsonObject,
    timeoutMs = run.timeoutMs,
  ): Promise<TurnOutcome | undefined> {
    const client = run.client;
    if (client === undefined) return undefined;
    const { id, outcome } = client.request(method, params);
    run.turnId = id;
    this.armTimer(run, timeoutMs);
    try {
      const answer = await Promise.race([outcome, run.done.then(() => undefined)]);
      if (answer === undefined || run.ending !== undefined || isTerminal(run.state)) return undefined;
      return answer;
    } finally {
      this.clearTimer(run);
      delete run.turnId;
    }
  }

  protected completeTurn(run: RunRecord, outcome: TurnOutcome): void {
    run.turns += 1;
    this.totals.turns += 1;
    if (outcome.ok) {
      run.result = outcome.result;
      run.output = outputOf(outcome.result);
      delete run.error;
    } else {
      delete run.result;
      delete run.output;
      run.error = agentError(outcome.error);
    }
    run.busy = false;
    this.setState(run, 'ready');
    this.emitter.emit('turn', run.handle, run.turns);
    if (this.draining) {
      void this.endSession(run, 'draining');
      return;
    }
    this.armIdle(run);
  }

  /** Graceful end of a warm session: `shutdown` request, stdin EOF, kill after the grace. */
  protected async endSession(run: RunRecord, reason: string): Promise<void> {
    if (isTerminal(run.state) || run.ending !== undefined) return run.done;
    this.clearIdle(run);
    run.ending = { state: 'succeeded', reason };
    this.log('info', 'warm session closing', { ...runFields(run), reason });
    run.client?.request('shutdown', { reason });
    void run.host?.shutdown();
    return run.done;
  }

  protected async onExit(run: RunRecord, exit: ChildExit): Promise<void> {
    if (isTerminal(run.state)) return;
    // Let an answer that arrived just before the exit settle first.
    await new Promise((resolve) => setImmediate(resolve));
    if (isTerminal(run.state)) return;
    const facts = exitFacts(exit);
    if (run.ending !== undefined) {
      const decided = decidedOutcome(run.ending, facts);
      // Plain mode keeps the stdout it got (up to the cap) however the run ended.
      if (run.collectOutput !== undefined) decided.fields.output = stripFinalNewline(run.collectOutput());
      return this.end(run, decided);
    }
    if (exit.spawnError !== undefined)
      return this.end(run, spawnFailedOutcome(run.profile.command, exit.spawnError));
    if (run.profile.mode === 'protocol') return this.end(run, protocolOutcome(run, facts));
    const outcome = plainOutcome(facts, run.collectOutput?.() ?? '');
    if (outcome.state === 'succeeded') {
      run.turns = 1;
      this.totals.turns += 1;
    }
    this.end(run, outcome);
  }
}
