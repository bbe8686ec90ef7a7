/** `agentd cancel RUN [--reason TEXT]` and `agentd cancel --all`. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { pretty, statusText } from '../format.js';
import { callOperation } from '../operation-call.js';
import { EXIT } from '../output.js';
import { paintState } from '../term-style.js';
import type { CommandContext, CommandHandler, CommandOf } from './command-context.js';

function cancelledText(value: unknown): string {
  const cancelled = isJsonObject(value) && Array.isArray(value.cancelled) ? value.cancelled : [];
  return `cancelled ${cancelled.length} run(s)\n${cancelled.map((c) => `  ${isJsonObject(c) ? String(c.handle) : ''}\n`).join('')}`;
}

/**
 * A run that already ended is not cancelled after the fact; the operator is told how it ended
 * (exit 0: it is not running, which is what cancel is for).
 */
async function cancelOne(command: CommandOf<'cancel'>, { client, io, style, refused }: CommandContext) {
  const handle = command.handle as string;
  const before = await callOperation(client, 'query', 'subagent.status', { handle });
  if (before.isError) return refused(before.value);
  let status = before.value;
  let already = isJsonObject(status) && status.terminal === true;
  if (!already) {
    const args: JsonObject = { handle, ...(command.reason === undefined ? {} : { reason: command.reason }) };
    const after = await callOperation(client, 'command', 'subagent.cancel', args);
    if (after.isError) return refused(after.value);
    status = after.value;
    // It ended on its own between the two calls.
    already = isJsonObject(status) && status.state !== 'cancelled';
  }
  if (command.json) {
    io.out(pretty(isJsonObject(status) && already ? { ...status, alreadyEnded: true } : status));
    return EXIT.ok;
  }
  if (already && isJsonObject(status)) {
    const state = String(status.state);
    io.out(
      `run ${String(status.runId)} had already ended: ${paintState(style.colourOut, state)}${
        typeof status.endedAt === 'string' ? ` at ${status.endedAt}` : ''
      }; nothing to cancel\n`,
    );
    return EXIT.ok;
  }
  io.out(statusText(status, style.colourOut, style.agentColours));
  return EXIT.ok;
}

export const cancelRuns: CommandHandler<'cancel'> = async (command, context) => {
  if (!command.all) return cancelOne(command, context);
  const args: JsonObject = command.reason === undefined ? {} : { reason: command.reason };
  return context.operate('command', 'cancel', args, cancelledText);
};
