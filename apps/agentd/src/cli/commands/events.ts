/** `agentd events [--follow]`: pages through agent://events; following polls for new ones. */
import { setTimeout as sleep } from 'node:timers/promises';
import { isJsonObject, WireError } from '@agentd/rpc-frame';
import { eventText } from '../format.js';
import { readJson } from '../operation-call.js';
import { EXIT } from '../output.js';
import { interruptible } from '../run-streaming.js';
import type { CommandHandler } from './command-context.js';

/** How often `--follow` reads again. */
const FOLLOW_POLL_MS = 250;

export const daemonEvents: CommandHandler<'events'> = async (command, { client, io, style, refused }) => {
  let after = command.after ?? 0;
  const level = command.level === undefined ? '' : `&level=${command.level}`;
  const outcome = await interruptible(io, async (signal) => {
    for (;;) {
      let page: unknown;
      try {
        page = await readJson(client, `agent://events?after=${after}${level}`);
      } catch (error) {
        if (error instanceof WireError)
          return refused(
            'reading events needs an operator connection (the unix socket, or HTTP with a bearer token)',
          );
        throw error;
      }
      const list = isJsonObject(page) && Array.isArray(page.events) ? page.events : [];
      for (const event of list) {
        io.out(command.json ? `${JSON.stringify(event)}\n` : eventText(event, style.colourOut));
        if (isJsonObject(event) && typeof event.seq === 'number') after = event.seq;
      }
      if (isJsonObject(page) && page.truncated === true) continue;
      if (!command.follow || signal.aborted) return EXIT.ok;
      await sleep(FOLLOW_POLL_MS);
      if (signal.aborted) return EXIT.ok;
    }
  });
  // Ctrl-C is how one stops following: a normal end.
  return outcome.interrupted === undefined ? outcome.value : command.follow ? EXIT.ok : outcome.interrupted;
};
