/**
 * `agentd spawn` / `agentd send`: one request that waits for a run or a turn, streaming its
 * progress and log notifications to stderr, and cancelling it on SIGINT/SIGTERM (and saying so).
 */
import { MetaKey } from '@agentd/lifecycle';
import { isJsonObject, type JsonObject, type JsonRpcNotification } from '@agentd/rpc-frame';
import { FAILED_STATES, pretty, statusText } from './format.js';
import type { McpClient } from './mcp-client.js';
import { callOperation } from './operation-call.js';

interface Output {
  out(text: string): void;
  err(text: string): void;
}

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
  id: 'subagent.spawn' | 'subagent.send';
  args: JsonObject;
  json: boolean;
  io: Output;
  /** What an interrupt cancels: the whole run (spawn) or the turn in flight (send). */
  cancels: 'run' | 'turn';
}

/** Prints the request's notifications as they come (text mode only: --json keeps stderr quiet). */
function printer(call: StreamingCall, started: { handle?: string; runId?: string }) {
  return (notification: JsonRpcNotification) => {
    const params = isJsonObject(notification.params) ? notification.params : {};
    if (notification.method === 'notifications/message') {
      const data = params.data;
      if (isJsonObject(data) && data.event === 'started') {
        started.handle = String(data.handle);
        started.runId = String(data.runId);
        if (!call.json) call.io.err(`agentd: run ${started.runId} started (handle ${started.handle})\n`);
        return;
      }
      if (!call.json) call.io.err(`${typeof data === 'string' ? data : JSON.stringify(data)}\n`);
    } else if (notification.method === 'notifications/progress' && !call.json) {
      const message = typeof params.message === 'string' ? params.message : undefined;
      const total = typeof params.total === 'number' ? `/${params.total}` : '';
      call.io.err(`${message ?? `progress ${String(params.progress)}${total}`}\n`);
    }
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

export async function runStreaming(client: McpClient, call: StreamingCall): Promise<number> {
  const started: { handle?: string; runId?: string } = {};
  if (call.id === 'subagent.send') started.handle = String(call.args.handle);
  const outcome = await interruptible(call.io, (signal) =>
    callOperation(client, 'command', call.id, call.args, {
      signal,
      meta: { progressToken: 'agentd-cli', [MetaKey.logLevel]: 'info' },
      onNotification: printer(call, started),
    }),
  );
  if (outcome.interrupted !== undefined) {
    const what = call.cancels === 'run' ? `run ${started.runId ?? '(not started yet)'}` : 'the turn';
    call.io.err(`agentd: interrupted: cancelling ${what}\n`);
    if (call.cancels === 'run' && started.handle !== undefined) {
      const state = await confirmCancelled(client, started.handle).catch(() => 'unknown');
      call.io.err(`agentd: run ${started.runId} ${state}\n`);
    } else if (call.cancels === 'turn') {
      call.io.err(`agentd: the session stays; end it with agentd cancel ${started.handle}\n`);
    }
    return outcome.interrupted;
  }
  const { isError, value } = outcome.value;
  if (call.json) {
    call.io.out(pretty(value));
  } else if (call.id === 'subagent.send' && isJsonObject(value)) {
    call.io.out(`${String(value.output ?? '')}\n`);
  } else if (isJsonObject(value) && typeof value.state === 'string') {
    const text = statusText({ ...value, output: undefined, tail: undefined });
    call.io.err(text);
    if (typeof value.output === 'string') call.io.out(`${value.output}\n`);
  } else {
    call.io.err(`agentd: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }
  const turnFailed = call.id === 'subagent.send' && isJsonObject(value) && value.isError === true;
  // In Code Mode a failed run is a value, not an error: its state decides.
  const runFailed = isJsonObject(value) && FAILED_STATES.has(String(value.state));
  return isError || turnFailed || runFailed ? 1 : 0;
}
