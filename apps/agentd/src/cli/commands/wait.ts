/** `agentd wait RUN [--timeout MS]`: waits for a run to end and exits as it ended. */
import { setTimeout as sleep } from 'node:timers/promises';
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { FAILED_STATES, statusText } from '../format.js';
import type { McpClient } from '../mcp-client.js';
import { callOperation } from '../operation-call.js';
import { EXIT, type Output } from '../output.js';
import { interruptible } from '../run-streaming.js';
import { isTruncated, truncationNotice } from '../truncation.js';
import type { CommandHandler } from './command-context.js';

/** Polls a run until it is terminal or `timeoutMs` passed; neither field when it gave up. */
async function waitTerminal(
  client: McpClient,
  handle: string,
  timeoutMs: number | undefined,
  signal?: AbortSignal,
): Promise<{ status?: JsonObject; refusal?: unknown }> {
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  let pause = 50;
  for (;;) {
    const { isError, value } = await callOperation(client, 'query', 'subagent.status', { handle });
    if (isError) return { refusal: value };
    if (isJsonObject(value) && value.terminal === true) return { status: value };
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return {};
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, 500);
  }
}

/** A failed run exits 1; one whose output was shown cut says so on stderr and exits 4. */
function runExit(status: unknown, io: Output): number {
  if (isJsonObject(status) && FAILED_STATES.has(String(status.state))) return EXIT.failed;
  if (!isTruncated(status)) return EXIT.ok;
  io.err(truncationNotice(status));
  return EXIT.truncated;
}

export const waitRun: CommandHandler<'wait'> = async (command, { client, io, style, show, refused }) => {
  // Interrupting a wait stops waiting; the run itself goes on (cancel it with `agentd cancel`).
  const outcome = await interruptible(io, (signal) =>
    waitTerminal(client, command.handle, command.timeoutMs, signal),
  );
  if (outcome.interrupted !== undefined) return outcome.interrupted;
  const { status, refusal } = outcome.value;
  if (refusal !== undefined) return refused(refusal);
  if (status === undefined) {
    io.err(`agentd: ${command.handle} is still running after ${command.timeoutMs} ms\n`);
    return EXIT.waitTimedOut;
  }
  show(status, (v) => statusText(v, style.colourOut, style.agentColours));
  return runExit(status, io);
};
