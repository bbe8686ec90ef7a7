/**
 * A run that is a conversation (a warm protocol session, a Claude Code or ACP run): after a
 * turn it waits (`ready`) for the next message; `send` takes one turn at a time; `close` ends it
 * gracefully; an idle timer closes it when nobody writes. The modes say how a turn goes to their
 * agent, how a turn is stopped, and how the agent is asked to leave.
 */
import { LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { Run } from './run.js';
import type { SendOptions, SendResult } from './types.js';

export abstract class ConversationRun extends Run {
  private idleTimer: NodeJS.Timeout | undefined;

  /** Sends one turn to the agent; resolves with its reply (rejects when the run ends instead). */
  protected abstract sendTurn(message: string, timeoutMs: number): Promise<SendResult>;
  /** The caller of a turn stopped waiting: ask the agent to stop the turn. */
  protected abstract abortTurn(reason: string): void;
  /** Asks the agent to leave (after `ending` is set); the run ends when its child is gone. */
  protected abstract closeGracefully(reason: string): void;

  /** A ready session with no close under way: it may take a turn, or be closed. */
  get idle(): boolean {
    return this.record.warm && this.record.state === 'ready' && this.ending === undefined;
  }

  /** A turn is in flight (or the first one has not been answered yet). */
  get answering(): boolean {
    return this.record.busy || this.record.state !== 'ready';
  }

  /** Refuses a turn unless this session is ready for one. */
  checkReady(): void {
    if (!this.live || this.ending !== undefined) {
      throw new LocalError<AgentdErrorCode>(
        'session_closed',
        `the session has ended (${this.ending?.state ?? this.record.state})`,
      );
    }
    if (this.answering)
      throw new LocalError<AgentdErrorCode>('busy', 'the session is still answering a turn');
  }

  /**
   * Sends one checked turn (see `Supervisor.send`). Aborting `signal` rejects with `aborted` and
   * asks the agent to stop; the session stays busy until it answers.
   */
  send(
    message: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    options: Pick<SendOptions, 'onEvent' | 'onPermission'> = {},
  ): Promise<SendResult> {
    this.record.busy = true;
    this.clearIdle();
    this.setState('running');
    const unobserve = options.onEvent === undefined ? undefined : this.observe(options.onEvent);
    const unanswer = options.onPermission === undefined ? undefined : this.answerWith(options.onPermission);
    const work = this.sendTurn(message, timeoutMs).finally(() => {
      unobserve?.();
      unanswer?.();
    });
    if (signal === undefined) return work;
    return this.raceAbort(work, signal);
  }

  /** Graceful end of the session: the mode's goodbye, stdin EOF, kill after the grace. */
  async close(reason: string): Promise<void> {
    if (!this.live || this.ending !== undefined) return this.done;
    this.clearIdle();
    this.ending = { state: 'succeeded', reason };
    this.log('info', 'warm session closing', { reason });
    this.closeGracefully(reason);
    return this.done;
  }

  /** A turn was answered: the session waits for the next one (a turn listener may close it). */
  protected turnDone(): void {
    this.record.busy = false;
    this.setState('ready');
    this.emitTurn();
    if (this.ending === undefined && this.live) this.armIdle();
  }

  protected override stopTimers(): void {
    super.stopTimers();
    this.clearIdle();
  }

  private async raceAbort(work: Promise<SendResult>, signal: AbortSignal): Promise<SendResult> {
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        this.abortTurn('aborted by the caller');
        reject(
          new LocalError<AgentdErrorCode>(
            'aborted',
            'the caller stopped waiting; the agent was asked to cancel the turn',
          ),
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

  private armIdle(): void {
    this.clearIdle();
    const idleMs = this.record.profile.idleTimeoutMs ?? this.context.limits().warmIdleTimeoutMs;
    if (idleMs === 0) return;
    this.idleTimer = setTimeout(() => void this.close('idle timeout'), idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
