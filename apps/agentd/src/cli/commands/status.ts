/** `agentd status [RUN]`: the daemon's status, or one run's. */
import { daemonStatusText, statusText } from '../format.js';
import { callOperation, readJson } from '../operation-call.js';
import { EXIT } from '../output.js';
import { isTruncated, truncationNotice } from '../truncation.js';
import type { CommandHandler } from './command-context.js';

export const status: CommandHandler<'status'> = async (command, { client, io, style, show, refused }) => {
  if (command.handle === undefined) {
    show(await readJson(client, 'agent://status'), (v) => daemonStatusText(v, style.colourOut));
    return EXIT.ok;
  }
  const { isError, value } = await callOperation(client, 'query', 'subagent.status', {
    handle: command.handle,
  });
  if (isError) return refused(value);
  show(value, (v) => statusText(v, style.colourOut, style.agentColours));
  // `status` reports (a failed run is not its failure); only a cut output changes its exit code.
  if (!isTruncated(value)) return EXIT.ok;
  io.err(truncationNotice(value));
  return EXIT.truncated;
};
