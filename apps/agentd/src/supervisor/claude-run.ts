/**
 * A `claude`-mode run: Claude Code driven over its stream-json control protocol, as a
 * conversation. Each turn is a user message; the turn ends with the CLI's `result`. Permission
 * prompts (`can_use_tool`) go to the run's permission broker; cancel interrupts the turn before
 * any kill; usage and cost come from the results and are held against the run's budget.
 */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import type { ChildHost } from './child-host.js';
import {
  assistantBlockEvents,
  diffOf,
  finishedToolCall,
  streamChunkEvent,
  toolCallView,
  usageOf,
} from './claude-events.js';
import {
  type ClaudeTurnResult,
  claudeArgs,
  permissionOptions,
  permissionResponse,
  turnResult,
} from './claude-protocol.js';
import { type ClaudeMessage, ClaudeStream } from './claude-stream.js';
import { ConversationRun } from './conversation-run.js';
import { type ExitFacts, endedDuringTurn, type Outcome, protocolOutcome } from './exit-outcome.js';
import { lineEvent, OutputLines } from './output-lines.js';
import type { RunContext } from './run.js';
import type { RunUsage, ToolCallView } from './run-event.js';
import type { RunIdentity } from './run-record.js';
import { addUsage, ZERO_USAGE } from './run-usage.js';
import type { AgentProfile, PlainTailLine, SendResult } from './types.js';

/** Turn results kept in the run's result (the newest). */
const MAX_TURN_RESULTS = 100;
/** Tool calls remembered to finish them when their result comes (bounded: a long session has many). */
const MAX_TOOL_CALLS = 1000;

export interface ClaudeRunOptions {
  /** Continue this Claude Code session in the new process (`--resume`). */
  resumeSessionId?: string;
}

interface Turn {
  readonly abort: AbortController;
  resolve: (result: ClaudeTurnResult) => void;
  /** Usage of this turn's API calls so far, by message id (a message repeats its usage per block). */
  readonly calls: Map<string, RunUsage>;
}

export class ClaudeRun extends ConversationRun {
  private stream: ClaudeStream | undefined;
  private stderr: OutputLines | undefined;
  private turn: Turn | undefined;
  private readonly toolCalls = new Map<string, { view: ToolCallView; input: unknown }>();
  private readonly turnResults: ClaudeTurnResult[] = [];
  /** The message being streamed (partial messages), and the messages whose text was streamed. */
  private streaming: string | undefined;
  private readonly streamed = new Set<string>();
  /** Usage of completed turns. */
  private settled: RunUsage = ZERO_USAGE;
  /** The CLI's `total_cost_usd`: the cumulative cost of this process's session. */
  private cost: number | undefined;

  constructor(
    identity: RunIdentity,
    context: RunContext,
    private readonly options: ClaudeRunOptions = {},
  ) {
    super(identity, context);
    if (options.resumeSessionId !== undefined) this.record.sessionId = options.resumeSessionId;
  }

  /** Stops the turn gracefully (interrupt, then stdin EOF), kills after the grace. */
  override async cancel(reason: string): Promise<void> {
    if (!this.live) return;
    if (this.ending !== undefined || this.host?.alive !== true || this.stream === undefined)
      return super.cancel(reason);
    this.log('info', 'subagent cancel requested', { reason });
    this.ending = {
      state: 'cancelled',
      reason,
      error: { code: 'cancelled', message: `cancelled: ${reason}` },
    };
    this.stopTimers();
    this.turn?.abort.abort();
    void this.stream.control('interrupt');
    void this.host.shutdown();
    return this.done;
  }

  protected childProfile(): AgentProfile {
    const profile = this.record.profile;
    return { ...profile, args: claudeArgs(profile.args ?? [], this.options.resumeSessionId) };
  }

  protected attach(host: ChildHost, instruction: string): void {
    this.stderr = new OutputLines((_stream, text) => this.emitEvent(lineEvent('stderr', text)));
    this.stderr.follow('stderr', host.child.stderr);
    this.stream = new ClaudeStream(
      host.child.stdout,
      host.child.stdin,
      this.context.limits().maxOutputBytes,
      {
        onMessage: (message) => this.onMessage(message),
        onControlRequest: (subtype, request, signal) => this.onControlRequest(subtype, request, signal),
        onViolation: (reason, code) =>
          void this.terminate({ state: 'failed', error: { code, message: reason } }),
      },
    );
    void this.done.then(() => this.stream?.close());
    void this.stream.control('initialize', { hooks: null });
    this.background(this.firstTurn(instruction));
  }

  protected exitOutcome(facts: ExitFacts): Outcome {
    const outcome = protocolOutcome(this.record, facts);
    const error = outcome.fields.error;
    if (error !== undefined) error.message = error.message.replace(/^agent/, 'claude');
    return outcome;
  }

  protected override tail(): PlainTailLine[] | undefined {
    const tail = this.stderr?.tail();
    return tail !== undefined && tail.length > 0 ? tail : undefined;
  }

  protected async sendTurn(message: string, timeoutMs: number): Promise<SendResult> {
    const result = await this.runTurn(message, timeoutMs);
    if (result === undefined) {
      await this.done;
      throw endedDuringTurn(this.record);
    }
    this.completeTurn(result);
    return {
      handle: this.handle,
      turn: this.record.turns,
      reply: result,
      isError: result.isError,
      output: result.text,
    };
  }

  protected abortTurn(): void {
    if (this.turn !== undefined) void this.stream?.control('interrupt');
  }

  protected closeGracefully(): void {
    this.turn?.abort.abort();
    void this.host?.shutdown();
  }

  private async firstTurn(instruction: string): Promise<void> {
    const result = await this.runTurn(instruction, this.record.timeoutMs);
    if (result === undefined) return;
    if (this.record.warm) {
      this.completeTurn(result);
      return;
    }
    this.record.turns = 1;
    this.recordResult(result);
    this.emitTurn();
    if (result.isError)
      this.finish('failed', { error: { code: 'agent_error', message: result.text, data: result } });
    else this.finish('succeeded', { result: this.record.result, output: result.text });
  }

  /** One user message, under a timeout; undefined when the run ended instead. */
  private async runTurn(message: string, timeoutMs: number): Promise<ClaudeTurnResult | undefined> {
    const stream = this.stream;
    if (stream === undefined || this.ending !== undefined) return undefined;
    let resolve: (result: ClaudeTurnResult) => void = () => {};
    const answered = new Promise<ClaudeTurnResult>((done) => {
      resolve = done;
    });
    const turn: Turn = { abort: new AbortController(), resolve, calls: new Map() };
    this.turn = turn;
    this.armTimer(timeoutMs);
    stream.sendUser(message, this.record.sessionId);
    try {
      const result = await Promise.race([answered, this.done.then(() => undefined)]);
      if (result === undefined || this.ending !== undefined || !this.live) return undefined;
      return result;
    } finally {
      this.clearTimer();
      // Nothing pending outlives its turn.
      turn.abort.abort();
      if (this.turn === turn) this.turn = undefined;
    }
  }

  private completeTurn(result: ClaudeTurnResult): void {
    this.record.turns += 1;
    this.recordResult(result);
    this.turnDone();
  }

  private recordResult(result: ClaudeTurnResult): void {
    const record = this.record;
    this.turnResults.push(result);
    if (this.turnResults.length > MAX_TURN_RESULTS) this.turnResults.shift();
    record.result = { ...result, turns: [...this.turnResults] };
    record.output = result.text;
    if (result.isError) record.error = { code: 'agent_error', message: result.text, data: result };
    else delete record.error;
  }

  private onMessage(message: ClaudeMessage): void {
    if (typeof message.session_id === 'string' && message.session_id !== '')
      this.record.sessionId = message.session_id;
    if (message.type === 'stream_event') this.onStreamEvent(message.event);
    else if (message.type === 'assistant') this.onAssistant(message);
    else if (message.type === 'user') this.onToolResults(message);
    else if (message.type === 'result') this.onResult(message);
  }

  private onStreamEvent(event: unknown): void {
    const fields = (typeof event === 'object' && event !== null ? event : {}) as Record<string, unknown>;
    if (fields.type === 'message_start') {
      const id = (fields.message as Record<string, unknown> | undefined)?.id;
      this.streaming = typeof id === 'string' ? id : undefined;
      return;
    }
    const chunk = streamChunkEvent(event);
    if (chunk === undefined) return;
    if (this.streaming !== undefined) {
      // Bounded: only the current turn's messages matter.
      if (this.streamed.size > 1000) this.streamed.clear();
      this.streamed.add(this.streaming);
    }
    this.emitEvent(chunk);
  }

  private onAssistant(message: ClaudeMessage): void {
    const body = (message.message ?? {}) as Record<string, unknown>;
    const content = Array.isArray(body.content) ? body.content : [];
    // Text and thinking already streamed as chunks are not repeated whole.
    const streamed = typeof body.id === 'string' && this.streamed.has(body.id);
    for (const block of content) {
      if (typeof block !== 'object' || block === null) continue;
      const fields = block as Record<string, unknown>;
      if (streamed && (fields.type === 'text' || fields.type === 'thinking')) continue;
      for (const event of assistantBlockEvents(fields)) {
        if (event.type === 'tool_call') this.remember(event.toolCall, fields.input);
        this.emitEvent(event);
      }
    }
    // Tokens mid-turn: a tiny token budget stops a turn before it runs away.
    const turn = this.turn;
    if (turn !== undefined && typeof body.id === 'string' && body.usage !== undefined) {
      turn.calls.set(body.id, usageOf(body.usage));
      let live = this.settled;
      for (const usage of turn.calls.values()) live = addUsage(live, usage);
      this.recordUsage(this.withCost(live));
    }
  }

  private onToolResults(message: ClaudeMessage): void {
    const body = (message.message ?? {}) as Record<string, unknown>;
    const content = Array.isArray(body.content) ? body.content : [];
    for (const block of content) {
      if (typeof block !== 'object' || block === null) continue;
      const fields = block as Record<string, unknown>;
      if (fields.type !== 'tool_result' || typeof fields.tool_use_id !== 'string') continue;
      const call = this.toolCalls.get(fields.tool_use_id);
      if (call === undefined) continue;
      const finished = finishedToolCall(call.view, fields);
      this.toolCalls.delete(fields.tool_use_id);
      this.emitEvent({ type: 'tool_call', toolCall: finished });
      const diff =
        finished.status === 'completed' && call.view.name !== undefined
          ? diffOf(call.view.name, call.input)
          : undefined;
      if (diff !== undefined) this.emitEvent(diff);
    }
  }

  private onResult(message: ClaudeMessage): void {
    const result = turnResult(message, this.record.turns + 1);
    if (typeof message.total_cost_usd === 'number' && Number.isFinite(message.total_cost_usd))
      this.cost = message.total_cost_usd;
    this.settled = addUsage(this.settled, usageOf(message.usage));
    this.recordUsage(this.withCost(this.settled));
    this.emitEvent({ type: 'turn_end', turn: result.turn, stopReason: result.stopReason, text: result.text });
    this.turn?.resolve(result);
  }

  private withCost(usage: RunUsage): RunUsage {
    return this.cost === undefined ? { ...usage } : { ...usage, costUsd: this.cost };
  }

  private remember(view: ToolCallView, input: unknown): void {
    this.toolCalls.set(view.id, { view, input });
    if (this.toolCalls.size > MAX_TOOL_CALLS) {
      const oldest = this.toolCalls.keys().next().value;
      if (oldest !== undefined) this.toolCalls.delete(oldest);
    }
  }

  private async onControlRequest(
    subtype: string,
    request: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (subtype !== 'can_use_tool')
      throw new LocalError<AgentdErrorCode>(
        'invalid_request',
        `agentd does not answer ${JSON.stringify(subtype)} requests`,
      );
    const name = typeof request.tool_name === 'string' ? request.tool_name : 'tool';
    const toolUseId =
      typeof request.tool_use_id === 'string'
        ? request.tool_use_id
        : `permission-${String(request.request_id)}`;
    const known = this.toolCalls.get(toolUseId)?.view;
    const toolCall = known ?? toolCallView(toolUseId, name, request.input);
    const requestId = toolUseId;
    const turnSignal = this.turn?.abort.signal ?? AbortSignal.abort();
    const decision = await this.requestPermission(
      { requestId, toolCall, options: permissionOptions(request) },
      AbortSignal.any([signal, turnSignal]),
    );
    return permissionResponse(decision, request);
  }
}
