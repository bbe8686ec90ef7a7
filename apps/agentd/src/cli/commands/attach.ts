/** `agentd attach RUN [--timeout MS]`: follows a run someone else started; Ctrl-C only stops watching. */
import { isJsonObject } from '@agentd/rpc-frame';
import { callOperation } from '../operation-call.js';
import { EXIT } from '../output.js';
import { runStreaming } from '../run-streaming.js';
import type { CommandHandler } from './command-context.js';

export const attachRun: CommandHandler<'attach'> = async (command, { client, io, style, refused }) => {
  // What is known before following: the run id and start time for the status line.
  const before = await callOperation(client, 'query', 'subagent.status', { handle: command.handle });
  if (before.isError) return refused(before.value);
  const status = isJsonObject(before.value) ? before.value : {};
  const startedAt = Date.parse(String(status.startedAt));
  const followed = {
    handle: command.handle,
    ...(typeof status.runId === 'string' ? { runId: status.runId } : {}),
    ...(Number.isNaN(startedAt) ? {} : { startedAt }),
  };
  if (!command.json && status.terminal !== true)
    io.err(
      `agentd: attached to run ${String(status.runId)} (${String(status.agent)}, ${String(status.state)})\n`,
    );
  const attach = runStreaming(client, {
    id: 'subagent.attach',
    args: { handle: command.handle },
    json: command.json,
    events: command.events === true,
    io,
    style,
    interrupts: 'watch',
    followed,
  });
  if (command.timeoutMs === undefined) return attach;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      io.err(`\nagentd: ${String(status.runId)} is still running after ${command.timeoutMs} ms\n`);
      resolve(EXIT.waitTimedOut);
    }, command.timeoutMs);
  });
  try {
    return await Promise.race([attach, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
};
