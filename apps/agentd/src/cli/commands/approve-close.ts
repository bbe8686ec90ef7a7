/** `agentd approve RUN [REQUEST_ID] [--deny] [--always]` and `agentd close RUN`. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { pretty, statusText } from '../format.js';
import { inert } from '../inert-text.js';
import { callOperation } from '../operation-call.js';
import { EXIT } from '../output.js';
import { paintState } from '../term-style.js';
import type { CommandHandler } from './command-context.js';

/** Answers a pending permission prompt; says what was decided, or why nothing was. */
export const approveRun: CommandHandler<'approve'> = async (command, { client, io, style, refused }) => {
  const args: JsonObject = { handle: command.handle, decision: command.deny ? 'deny' : 'allow' };
  if (command.requestId !== undefined) args.requestId = command.requestId;
  if (command.always) args.always = true;
  const { isError, value } = await callOperation(client, 'command', 'subagent.approve', args);
  if (isError) return refused(value);
  if (command.json) {
    io.out(pretty(value));
    return EXIT.ok;
  }
  const answer = isJsonObject(value) ? value : {};
  const decision = isJsonObject(answer.decision) ? answer.decision : {};
  const kind = String(decision.kind ?? decision.outcome ?? '?');
  const state = kind.startsWith('allow') ? 'succeeded' : 'failed';
  io.out(
    `permission ${inert(String(answer.requestId))}: ${paintState(style.colourOut, state, inert(kind))}${
      typeof decision.optionId === 'string' ? ` (option ${inert(decision.optionId)})` : ''
    }\n`,
  );
  return EXIT.ok;
};

/** Ends a conversation gracefully and prints its final status. */
export const closeRun: CommandHandler<'close'> = async (command, { style, operate }) =>
  operate('command', 'subagent.close', { handle: command.handle }, (v) =>
    statusText(v, style.colourOut, style.agentColours),
  );
