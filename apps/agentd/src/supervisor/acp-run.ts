/**
 * An `acp`-mode run: an Agent Client Protocol agent driven as an ACP client (initialize, a
 * session in the run's cwd, a prompt per turn, session/cancel before any kill), its session
 * updates mapped onto the run event model, its permission requests put to the broker, its file
 * and terminal requests served inside the run's working directory when the profile allows them.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type {
  ClientConnection,
  InitializeResponse,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk/unstable';
import { PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk/unstable';
import { clientApp, clientCapabilities } from './acp-client-side.js';
import { mapSessionUpdate, permissionRequest, ToolCalls } from './acp-events.js';
import { WorkspaceFiles } from './acp-files.js';
import { agentStream } from './acp-stream.js';
import { Terminals } from './acp-terminals.js';
import { UsageTotals } from './acp-usage.js';
import { type Settled, settle, withinGrace } from './acp-waits.js';
import type { ChildHost } from './child-host.js';
import { ConversationRun } from './conversation-run.js';
import { type ExitFacts, endedDuringTurn, type Outcome, protocolOutcome } from './exit-outcome.js';
import { lineEvent, OutputLines } from './output-lines.js';
import type { Run, RunContext } from './run.js';
import type { RunEvent, RunUsage } from './run-event.js';
import type { Ending, RunIdentity } from './run-record.js';
import type { AgentProfile, PlainTailLine, SendResult, SubagentError } from './types.js';

/** `initialize` and `session/new|load|resume` must be answered within this (or the run's timeout, if shorter). */
const HANDSHAKE_TIMEOUT_MS = 30_000;

/** Updates held while session/new is answered; more is a misbehaving agent. */
const MAX_EARLY_UPDATES = 100;

export interface AcpRunOptions {
  /** Continue this ACP session (session/resume or session/load, whichever the agent offers) instead of a new one. */
  sessionId?: string;
}

type TurnOutcome = { ok: true; stopReason: string; text: string } | { ok: false; error: SubagentError };

const ABORTED = AbortSignal.abort();

export class AcpRun extends ConversationRun {
  private connection: ClientConnection | undefined;
  private stderr: OutputLines | undefined;
  private terminals: Terminals | undefined;
  private readonly tools = new ToolCalls();
  private sessionIdValue: string | undefined;
  private readonly resumeFrom: string | undefined;
  /** Aborted when the turn in flight ends: its pending permission requests are answered `cancelled`. */
  private turnAbort: AbortController | undefined;
  /** The turn in flight, settled when its `session/prompt` is answered (or the run ends). */
  private turnSettled: Promise<unknown> | undefined;
  private turnText = '';
  private readonly usage = new UsageTotals();
  private handshakeTimer: NodeJS.Timeout | undefined;
  private permissionCount = 0;
  /** Updates that arrived while `session/new` was being answered (the id not known yet). */
  private early: unknown[] | undefined;

  constructor(identity: RunIdentity, context: RunContext, options: AcpRunOptions = {}) {
    super(identity, context);
    this.resumeFrom = options.sessionId;
  }

  /** The ACP session id, once the agent gave (or accepted) one. */
  get sessionId(): string | undefined {
    return this.sessionIdValue;
  }

  /** A turn in flight is asked to stop (`session/cancel`) and given the kill grace to do so; then the kill. */
  override async cancel(reason: string): Promise<void> {
    if (!this.live) return;
    const settled = this.turnSettled;
    if (this.ending === undefined && settled !== undefined && this.sessionIdValue !== undefined) {
      this.ending = {
        state: 'cancelled',
        reason,
        error: { code: 'cancelled', message: `cancelled: ${reason}` },
      };
      this.cancelTurn();
      await withinGrace(Promise.race([settled, this.done]), this.context.limits().killGraceMs);
    }
    await super.cancel(reason);
  }

  protected childProfile(): AgentProfile {
    return this.record.profile;
  }

  protected attach(host: ChildHost, instruction: string): void {
    const limits = this.context.limits();
    this.stderr = new OutputLines((_stream, text) => this.emitEvent(lineEvent('stderr', text)));
    this.stderr.follow('stderr', host.child.stderr);
    const profile = this.record.profile;
    const root = this.root();
    const files =
      profile.allowFileSystem === true ? new WorkspaceFiles(root, limits.maxOutputBytes) : undefined;
    if (profile.allowTerminal === true) this.terminals = new Terminals(root, limits.maxOutputBytes);
    const hooks = {
      onUpdate: (params: unknown) => this.onUpdate(params),
      requestPermission: (params: RequestPermissionRequest, signal: AbortSignal) =>
        this.onPermission(params, signal),
      checkSession: (sessionId: unknown) => this.checkSession(sessionId),
      files,
      terminals: this.terminals,
    };
    const stream = agentStream(host.child.stdout, host.child.stdin, limits.maxOutputBytes, (reason) =>
      this.violation(reason),
    );
    this.connection = clientApp(hooks).connect(stream);
    this.background(this.firstTurn(instruction, clientCapabilities(hooks)));
  }

  protected exitOutcome(facts: ExitFacts): Outcome {
    return protocolOutcome(this.record, facts);
  }

  protected override tail(): PlainTailLine[] | undefined {
    const tail = this.stderr?.tail();
    return tail !== undefined && tail.length > 0 ? tail : undefined;
  }

  protected override stopTimers(): void {
    super.stopTimers();
    if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
  }

  protected override terminate(ending: Ending): Promise<void> {
    this.release();
    return super.terminate(ending);
  }

  protected override finish(...args: Parameters<Run['finish']>): void {
    if (this.live) this.release();
    super.finish(...args);
  }

  /** The run's end is decided: pending decisions are cancelled, terminals killed, the connection closed. */
  private release(): void {
    this.turnAbort?.abort();
    this.terminals?.closeAll();
    this.connection?.close();
  }

  private cwd(): string {
    return resolve(this.record.profile.cwd ?? process.cwd());
  }

  /** The real working directory (fs and terminal requests are checked against it). */
  private root(): string {
    try {
      return realpathSync(this.cwd());
    } catch {
      // A missing cwd fails the spawn itself (spawn_failed); nothing will be served.
      return this.cwd();
    }
  }

  private violation(reason: string): void {
    this.log('warning', 'acp protocol violation', { reason });
    void this.terminate({ state: 'failed', error: { code: 'protocol_error', message: reason } });
  }

  private checkSession(sessionId: unknown): void {
    if (sessionId !== this.sessionIdValue)
      throw RequestError.invalidParams({ sessionId }, 'agentd: no such session on this connection');
  }

  // ---- the handshake and the turns ------------------------------------------------------------

  private async firstTurn(
    instruction: string,
    capabilities: ReturnType<typeof clientCapabilities>,
  ): Promise<void> {
    const ready = await this.handshake(capabilities);
    if (!ready) return;
    const outcome = await this.prompt(instruction, this.record.timeoutMs);
    if (outcome === undefined) return;
    if (this.record.warm) return this.completeTurn(outcome);
    this.record.turns = 1;
    this.emitTurnEnd(outcome);
    this.emitTurn();
    if (outcome.ok) this.finish('succeeded', { result: this.resultOf(outcome), output: outcome.text });
    else this.finish('failed', { error: outcome.error });
  }

  /** `initialize`, then the session; false when the run ended instead (the reason is recorded). */
  private async handshake(capabilities: ReturnType<typeof clientCapabilities>): Promise<boolean> {
    const agent = this.connection?.agent;
    if (agent === undefined) return false;
    const waitMs = Math.min(HANDSHAKE_TIMEOUT_MS, this.record.timeoutMs);
    let step = 'initialize';
    this.handshakeTimer = setTimeout(() => {
      this.violation(`the agent did not answer ${step} within ${waitMs} ms`);
    }, waitMs);
    try {
      const init = await this.settle(
        agent.request('initialize', {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: capabilities,
          clientInfo: { name: 'agentd', version: '1' },
        }),
      );
      if (init === undefined) return false;
      if (!init.ok) return this.handshakeFailed(step, init.error);
      const info = init.value as InitializeResponse;
      if (info.protocolVersion !== PROTOCOL_VERSION) {
        this.violation(
          `the agent speaks ACP version ${String(info.protocolVersion)}; agentd speaks ${PROTOCOL_VERSION}`,
        );
        return false;
      }
      const cwd = this.cwd();
      const resumeFrom = this.resumeFrom;
      let request: Promise<unknown>;
      if (resumeFrom === undefined) {
        step = 'session/new';
        this.early = [];
        request = agent.request('session/new', { cwd, mcpServers: [] });
      } else if (info.agentCapabilities?.sessionCapabilities?.resume != null) {
        step = 'session/resume';
        this.sessionIdValue = resumeFrom;
        request = agent.request('session/resume', { sessionId: resumeFrom, cwd, mcpServers: [] });
      } else if (info.agentCapabilities?.loadSession === true) {
        step = 'session/load';
        this.sessionIdValue = resumeFrom;
        request = agent.request('session/load', { sessionId: resumeFrom, cwd, mcpServers: [] });
      } else {
        this.violation(
          'the agent offers neither session/resume nor session/load: its session cannot be continued',
        );
        return false;
      }
      const session = await this.settle(request);
      if (session === undefined) return false;
      if (!session.ok) return this.handshakeFailed(step, session.error);
      if (resumeFrom === undefined) {
        const id = (session.value as { sessionId?: unknown } | null)?.sessionId;
        if (typeof id !== 'string' || id.length === 0) {
          this.violation('the agent answered session/new without a session id');
          return false;
        }
        this.sessionIdValue = id;
        this.replayEarly();
      }
      // In the status (and the run history): a restarted daemon continues the session by it.
      if (this.sessionIdValue !== undefined) this.record.sessionId = this.sessionIdValue;
      this.log('debug', 'acp session started', { sessionId: this.sessionIdValue, how: step });
      return true;
    } finally {
      if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
      this.handshakeTimer = undefined;
    }
  }

  /** An update sent right behind the session/new answer may be read before the answer is: checked now. */
  private replayEarly(): void {
    const early = this.early ?? [];
    this.early = undefined;
    for (const params of early) this.onUpdate(params);
  }

  private handshakeFailed(step: string, error: SubagentError): false {
    void this.terminate({
      state: 'failed',
      error: { ...error, code: 'protocol_error', message: `the agent refused ${step}: ${error.message}` },
    });
    return false;
  }

  /** One `session/prompt` under the turn's timeout; undefined when the run ended instead. */
  private async prompt(text: string, timeoutMs: number): Promise<TurnOutcome | undefined> {
    const agent = this.connection?.agent;
    const sessionId = this.sessionIdValue;
    if (agent === undefined || sessionId === undefined) return undefined;
    this.turnAbort = new AbortController();
    this.turnText = '';
    this.armTimer(timeoutMs);
    const work = this.settle(
      agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }),
    );
    this.turnSettled = work;
    try {
      const answer = await work;
      if (answer === undefined || this.ending !== undefined || !this.live) return undefined;
      if (!answer.ok) return { ok: false, error: answer.error };
      const response = answer.value as PromptResponse;
      this.emitUsage(this.usage.addTurn(response.usage));
      return { ok: true, stopReason: String(response.stopReason), text: this.turnText };
    } finally {
      this.clearTimer();
      this.turnAbort?.abort();
      this.turnAbort = undefined;
      this.turnSettled = undefined;
    }
  }

  /** A request's answer; undefined when the run ended (or the connection was lost) instead. */
  private async settle(request: Promise<unknown>): Promise<Settled | undefined> {
    const answer = await settle(request, this.done);
    if (answer === 'ended' || !this.live) return undefined;
    if (answer !== 'lost') return answer;
    await this.connectionLost();
    return undefined;
  }

  /** The connection closed without a violation: the exit explains it; an agent that stays is failed. */
  private async connectionLost(): Promise<void> {
    const host = this.host;
    if (host === undefined || !this.live) return;
    // An exit ends the run (with its code) soon after: that is the better explanation.
    await withinGrace(
      host.exited.then(() => this.done),
      this.context.limits().killGraceMs,
    );
    if (this.live && this.ending === undefined)
      this.violation('the agent closed its output while the session was open');
  }

  protected async sendTurn(message: string, timeoutMs: number): Promise<SendResult> {
    const outcome = await this.prompt(message, timeoutMs);
    if (outcome === undefined) {
      await this.done;
      throw endedDuringTurn(this.record);
    }
    this.completeTurn(outcome);
    const turn = { handle: this.record.handle, turn: this.record.turns };
    return outcome.ok
      ? { ...turn, reply: this.resultOf(outcome), isError: false, output: outcome.text }
      : { ...turn, reply: outcome.error, isError: true, output: outcome.error.message };
  }

  protected abortTurn(): void {
    this.cancelTurn();
  }

  /** Graceful end of a conversation: stdin EOF, kill after the grace. */
  protected closeGracefully(): void {
    void this.host?.shutdown();
  }

  /** `session/cancel` for the turn in flight; its pending permission requests are answered `cancelled`. */
  private cancelTurn(): void {
    const sessionId = this.sessionIdValue;
    if (this.turnAbort === undefined || sessionId === undefined) return;
    this.turnAbort.abort();
    this.connection?.agent.notify('session/cancel', { sessionId }).catch(() => {});
  }

  private completeTurn(outcome: TurnOutcome): void {
    const record = this.record;
    record.turns += 1;
    if (outcome.ok) {
      record.result = this.resultOf(outcome);
      record.output = outcome.text;
      delete record.error;
    } else {
      delete record.result;
      delete record.output;
      record.error = outcome.error;
    }
    this.emitTurnEnd(outcome);
    this.turnDone();
  }

  private emitTurnEnd(outcome: TurnOutcome): void {
    const stopReason = outcome.ok ? outcome.stopReason : 'error';
    const text = outcome.ok ? outcome.text : outcome.error.message;
    this.emitEvent({ type: 'turn_end', turn: this.record.turns, stopReason, text } satisfies RunEvent);
  }

  private resultOf(outcome: TurnOutcome & { ok: true }): Record<string, unknown> {
    const usage = this.usage.current;
    return {
      text: outcome.text,
      stopReason: outcome.stopReason,
      sessionId: this.sessionIdValue,
      ...(usage === undefined ? {} : { usage }),
    };
  }

  // ---- what the agent sends -------------------------------------------------------------------

  private onUpdate(params: unknown): void {
    if (!this.live || this.ending !== undefined) return;
    const sessionId = (params as { sessionId?: unknown } | null)?.sessionId;
    if (
      this.sessionIdValue === undefined &&
      this.early !== undefined &&
      this.early.length < MAX_EARLY_UPDATES
    ) {
      this.early.push(params);
      return;
    }
    if (this.sessionIdValue === undefined || sessionId !== this.sessionIdValue) {
      // Before the session exists nothing may be reported; after, only about it.
      this.violation(`the agent sent session/update for an unknown session ${JSON.stringify(sessionId)}`);
      return;
    }
    const mapped = mapSessionUpdate((params as { update?: unknown }).update, this.tools);
    // A session/load replays the history before it answers: not this turn's answer.
    if (this.turnAbort === undefined && mapped.text !== undefined && this.record.turns === 0) return;
    if (mapped.text !== undefined && this.turnAbort !== undefined) this.appendText(mapped.text);
    for (const event of mapped.events) this.emitEvent(event);
    if (mapped.costUsd !== undefined) {
      this.emitUsage(this.usage.setCost(mapped.costUsd));
    }
  }

  private appendText(text: string): void {
    const max = this.context.limits().maxOutputBytes;
    if (this.turnText.length >= max) return;
    this.turnText +=
      text.length + this.turnText.length > max ? text.slice(0, max - this.turnText.length) : text;
  }

  private async onPermission(
    params: RequestPermissionRequest,
    requestSignal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    this.permissionCount += 1;
    const request = permissionRequest(`perm-${this.permissionCount}`, params, this.tools);
    const { options } = request;
    // No turn in flight (it was cancelled or ended): the answer is `cancelled`, recorded as such.
    const signal = AbortSignal.any([this.turnAbort?.signal ?? ABORTED, requestSignal]);
    const decision = await this.requestPermission(request, signal);
    if (decision.outcome === 'selected' && options.some((option) => option.optionId === decision.optionId))
      return { outcome: { outcome: 'selected', optionId: decision.optionId } };
    return { outcome: { outcome: 'cancelled' } };
  }

  /** The run's usage event, status and budget check (Run.recordUsage). */
  private emitUsage(usage: RunUsage | undefined): void {
    if (usage !== undefined) this.recordUsage(usage);
  }
}
