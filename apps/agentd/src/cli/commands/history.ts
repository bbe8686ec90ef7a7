/**
 * `agentd runs --all` and `agentd logs`: the run history the daemon keeps across restarts, read
 * through `agent://runs` and `agent://logs/{handle}` (a restricted connection sees its own runs).
 */
import { isJsonObject, type JsonObject, WireError } from '@agentd/rpc-frame';
import { pretty, runsText } from '../format.js';
import { inert } from '../inert-text.js';
import { readJson } from '../operation-call.js';
import type { Output } from '../output.js';
import { interruptible } from '../run-streaming.js';
import type { CommandContext, CommandHandler, CommandOf } from './command-context.js';

/** How often `logs --follow` reads again while the run goes on. */
const FOLLOW_POLL_MS = 250;

function unavailable(io: Output, error: WireError): number {
  io.err(`agentd: ${inert(error.message)}\n`);
  return 1;
}

export async function historyRuns(
  command: CommandOf<'runs'>,
  { client, io, style }: CommandContext,
): Promise<number> {
  const params = new URLSearchParams();
  for (const key of ['cursor', 'agent', 'state', 'since'] as const) {
    const value = command[key];
    if (value !== undefined) params.set(key, value);
  }
  const query = params.size === 0 ? '' : `?${params.toString()}`;
  let page: unknown;
  try {
    page = await readJson(client, `agent://runs${query}`);
  } catch (error) {
    if (error instanceof WireError) return unavailable(io, error);
    throw error;
  }
  const runs = isJsonObject(page) && Array.isArray(page.runs) ? page.runs : [];
  const next = isJsonObject(page) && typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
  if (command.json) io.out(pretty(page));
  else io.out(runs.length === 0 ? 'no stored runs\n' : runsText(runs, undefined, style.colourOut));
  if (next !== undefined && !command.json) io.err(`more: agentd runs --all --cursor ${next}\n`);
  return 0;
}

/** What one stored event prints as: an output line, or nothing (`--events` prints them all). */
function outputOf(event: JsonObject): { text: string; stderr: boolean } | undefined {
  if (event.type === 'message' && typeof event.text === 'string')
    return { text: event.text, stderr: event.stream === 'stderr' };
  // An agent's output lines: a plain agent's stdout (`progress`), any agent's stderr (`log`).
  if ((event.stream === 'stdout' || event.stream === 'stderr') && typeof event.message === 'string')
    return { text: event.message, stderr: event.stream === 'stderr' };
  return undefined;
}

export const runLogs: CommandHandler<'logs'> = async (command, { client, io }) => {
  let after = 0;
  const outcome = await interruptible(io, async (signal) => {
    for (;;) {
      let page: unknown;
      try {
        page = await readJson(client, `agent://logs/${command.handle}?after=${after}`);
      } catch (error) {
        if (error instanceof WireError) return unavailable(io, error);
        throw error;
      }
      if (!isJsonObject(page)) return 1;
      const events = Array.isArray(page.events) ? page.events.filter(isJsonObject) : [];
      for (const stored of events) {
        if (typeof stored.seq === 'number') after = stored.seq;
        if (command.events) {
          io.out(`${JSON.stringify(stored)}\n`);
          continue;
        }
        const line = isJsonObject(stored.event) ? outputOf(stored.event) : undefined;
        if (line === undefined) continue;
        const shown = inert(line.text);
        const text = shown.endsWith('\n') ? shown : `${shown}\n`;
        if (line.stderr) io.err(text);
        else io.out(text);
      }
      if (typeof page.next === 'number') continue;
      // Read to the end while the run is over: that is the whole log.
      if (!command.follow || page.terminal === true || signal.aborted) return 0;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
      if (signal.aborted) return 0;
    }
  });
  return outcome.interrupted === undefined ? outcome.value : 0;
};
