/**
 * `agentd spawn` / `send` / `attach`: one request that waits for a run or a turn, showing its
 * progress and log notifications as they come (run-view.ts). SIGINT/SIGTERM cancels the run or
 * the turn (and says so); for attach it only stops watching.
 */
import { MetaKey } from '@agentd/lifecycle';
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { FAILED_STATES } from './format.js';
import type { McpClient } from './mcp-client.js';
import { callOperation } from './operation-call.js';
import type { Output } from './output.js';
import { type Followed, RunView } from './run-view.js';
import type { TermStyle } from './term-style.js';
import { EXIT_TRUNCATED, isTruncated, truncationNotice } from './truncation.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

export type Interruptible<T> = { interrupted: number } | { interrupted: undefined; value: T };

/**
 * Runs `work` with SIGINT/SIGTERM turned into an abort of its signal: the first signal resolves at
 * once with 130/143, a second one exits the process right away.
 */
export async function interruptible<T>(
  io: Output,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<Interruptible<T>> {
  const controller = new AbortController();
  let onSignal: (signal: 'SIGINT' | 'SIGTERM') => void = () => {};
  const interrupted = new Promise<number>((resolve) => {
    onSignal = (signal) => {
      if (controller.signal.aborted) process.exit(SIGNAL_EXIT[signal]);
      controller.abort();
      resolve(SIGNAL_EXIT[signal]);
    };
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const task = work(controller.signal);
    task.catch(() => {}); // settled below or abandoned after an interrupt
    const winner = await Promise.race([
      task.then((value) => ({ interrupted: undefined, value }) as const),
      interrupted.then((code) => ({ interrupted: code }) as const),
    ]);
    if (winner.interrupted !== undefined) io.err('\n');
    return winner;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export interface StreamingCall {
  id: 'subagent.spawn' | 'subagent.send' | 'subagent.attach';
  args: JsonObject;
  json: boolean;
  /** `--events`: the run's events as JSON lines on stdout. */
  events?: boolean;
  io: Output;
  style: TermStyle;
  /** What an interrupt ends: the whole run (spawn), the turn in flight (send), or only the watching (attach). */
  interrupts: 'run' | 'turn' | 'watch';
  /** What is already known of the run (attach): its run id and start, for the status line. */
  followed?: Followed;
}

/** After an interrupt: the cancelled run's final state, polled briefly (its process tree is being killed). */
async function confirmCancelled(client: McpClient, handle: string): Promise<string> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const { isError, value } = await callOperation(client, 'query', 'subagent.status', { handle });
    if (isError || !isJsonObject(value)) return 'unknown';
    if (value.terminal === true) return String(value.state);
    await sleep(250);
  }
  return 'still stopping';
}

/** Calls the operation with its notifications shown as they come; the exit code follows the outcome. */
export async function runStreaming(client: McpClient, call: StreamingCall): Promise<number> {
  const view = new RunView(call.io, call.style, call.json, call.events === true);
  Object.assign(view.followed, call.followed);
  if (call.id !== 'subagent.spawn') view.followed.handle = String(call.args.handle);
  const kind = call.id === 'subagent.attach' ? 'query' : 'command';
  const outcome = await interruptible(call.io, (signal) =>
    callOperation(client, kind, call.id, call.args, {
      signal,
      meta: { progressToken: 'agentd-cli', [MetaKey.logLevel]: 'info' },
      onNotification: view.onNotification,
    }),
  );
  if (outcome.interrupted !== undefined) {
    view.stop();
    const { handle, runId } = view.followed;
    if (call.interrupts === 'watch') {
      call.io.err(
        `agentd: detached from run ${runId ?? handle}; it goes on (agentd attach ${runId ?? handle} follows it again, agentd cancel stops it)\n`,
      );
    } else if (call.interrupts === 'run') {
      call.io.err(`agentd: interrupted: cancelling run ${runId ?? '(not started yet)'}\n`);
      if (handle !== undefined) {
        const state = await confirmCancelled(client, handle).catch(() => 'unknown');
        call.io.err(`agentd: run ${runId} ${state}\n`);
      }
    } else {
      call.io.err('agentd: interrupted: cancelling the turn\n');
      call.io.err(`agentd: the session stays; end it with agentd cancel ${handle}\n`);
    }
    return outcome.interrupted;
  }
  const { isError, value } = outcome.value;
  view.finish(value, call.id === 'subagent.send' ? 'turn' : 'run');
  const turnFailed = call.id === 'subagent.send' && isJsonObject(value) && value.isError === true;
  // In Code Mode a failed run is a value, not an error: its state decides.
  const runFailed = isJsonObject(value) && FAILED_STATES.has(String(value.state));
  if (isError || turnFailed || runFailed) return 1;
  if (!isTruncated(value)) return 0;
  call.io.err(truncationNotice(value));
  return EXIT_TRUNCATED;
}
