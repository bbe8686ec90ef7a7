/**
 * A protocol-mode run: NDJSON JSON-RPC with the agent, the first turn, and for a warm session
 * the later turns, the idle timer and the graceful close.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import { parseLogLevel } from '../log/log-level.js';
import type { ChildHost } from './child-host.js';
import { ConversationRun } from './conversation-run.js';
import {
  agentError,
  type ExitFacts,
  endedDuringTurn,
  type Outcome,
  protocolOutcome,
} from './exit-outcome.js';
import { lineEvent, OutputLines } from './output-lines.js';
import { ProtocolClient, type TurnOutcome } from './protocol-client.js';
import { outputOf } from './run-record.js';
import type { AgentEvent, AgentProfile, PlainTailLine, SendResult } from './types.js';

const MAX_AGENT_LOG_CHARS = 4096;

export class ProtocolRun extends ConversationRun {
  private client: ProtocolClient | undefined;
  /** Id of the agent request in flight, for `cancel` notifications. */
  private turnId: number | undefined;
  /** The child's stderr lines (stdout is the protocol): streamed and tailed as a plain agent's are. */
  private stderr: OutputLines | undefined;

  protected closeGracefully(reason: string): void {
    this.client?.request('shutdown', { reason });
    void this.host?.shutdown();
  }

  protected abortTurn(reason: string): void {
    if (this.turnId !== undefined) this.client?.notify('cancel', { id: this.turnId, reason });
  }

  protected childProfile(): AgentProfile {
    return this.record.profile;
  }

  protected attach(host: ChildHost, instruction: string): void {
    // Like a plain run's: for the waiting caller and the tail, not the daemon log.
    this.stderr = new OutputLines((_stream, text) => this.emitEvent(lineEvent('stderr', text)));
    this.stderr.follow('stderr', host.child.stderr);
    this.client = new ProtocolClient(
      host.child.stdout,
      host.child.stdin,
      this.context.limits().maxOutputBytes,
      {
        onEvent: (event) => this.onAgentEvent(event),
        onViolation: (reason, code) =>
          void this.terminate({ state: 'failed', error: { code, message: reason } }),
        onWarning: (message) => this.log('warning', message),
      },
    );
    this.background(this.firstTurn(instruction));
  }

  /** The child left without being asked to. */
  protected exitOutcome(facts: ExitFacts): Outcome {
    return protocolOutcome(this.record, facts);
  }

  protected override tail(): PlainTailLine[] | undefined {
    // A quiet agent's status stays as it was: no empty tail.
    const tail = this.stderr?.tail();
    return tail !== undefined && tail.length > 0 ? tail : undefined;
  }

  private async firstTurn(instruction: string): Promise<void> {
    const record = this.record;
    const params: JsonObject = {
      instruction,
      runId: record.runId,
      agent: record.profile.name,
      warm: record.warm,
      timeoutMs: record.timeoutMs,
    };
    const outcome = await this.turn('run', params, record.timeoutMs);
    if (outcome === undefined) return;
    if (record.warm) {
      this.completeTurn(outcome);
      return;
    }
    record.turns = 1;
    this.emitTurn();
    if (outcome.ok) this.finish('succeeded', { result: outcome.result, output: outputOf(outcome.result) });
    else this.finish('failed', { error: agentError(outcome.error) });
  }

  protected async sendTurn(message: string, timeoutMs: number): Promise<SendResult> {
    const record = this.record;
    const outcome = await this.turn('turn', { message, turn: record.turns + 1, timeoutMs }, timeoutMs);
    if (outcome === undefined) {
      await this.done;
      throw endedDuringTurn(record);
    }
    this.completeTurn(outcome);
    const turn = { handle: record.handle, turn: record.turns };
    return outcome.ok
      ? { ...turn, reply: outcome.result, isError: false, output: outputOf(outcome.result) }
      : { ...turn, reply: outcome.error, isError: true, output: outcome.error.message };
  }

  /** One request to the agent, under a timeout; undefined when the run ended instead. */
  private async turn(
    method: string,
    params: JsonObject,
    timeoutMs: number,
  ): Promise<TurnOutcome | undefined> {
    const client = this.client;
    if (client === undefined) return undefined;
    const { id, outcome } = client.request(method, params);
    this.turnId = id;
    this.armTimer(timeoutMs);
    try {
      const answer = await Promise.race([outcome, this.done.then(() => undefined)]);
      if (answer === undefined || this.ending !== undefined || !this.live) return undefined;
      return answer;
    } finally {
      this.clearTimer();
      this.turnId = undefined;
    }
  }

  private completeTurn(outcome: TurnOutcome): void {
    const record = this.record;
    record.turns += 1;
    if (outcome.ok) {
      record.result = outcome.result;
      record.output = outputOf(outcome.result);
      delete record.error;
    } else {
      delete record.result;
      delete record.output;
      record.error = agentError(outcome.error);
    }
    // A turn listener may close the session (the Supervisor does while draining).
    this.turnDone();
  }

  private onAgentEvent(event: AgentEvent): void {
    this.emitEvent(event);
    if (event.type !== 'log') return;
    const level = parseLogLevel(event.level) ?? 'info';
    const text = typeof event.message === 'string' ? event.message : JSON.stringify(event.message ?? '');
    const msg = text.length > MAX_AGENT_LOG_CHARS ? `${text.slice(0, MAX_AGENT_LOG_CHARS)}…` : text;
    this.log(level, msg, { source: 'agent' });
  }
}
