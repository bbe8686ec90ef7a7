/** `agentd send RUN MESSAGE`: one more turn of a conversation, followed until it ends. */
import type { JsonObject } from '@agentd/rpc-frame';
import { runStreaming } from '../run-streaming.js';
import type { CommandHandler } from './command-context.js';

export const sendTurn: CommandHandler<'send'> = async (command, { client, io, style }) => {
  const args: JsonObject = { handle: command.handle, message: command.message };
  if (command.timeoutMs !== undefined) args.timeoutMs = command.timeoutMs;
  return runStreaming(client, {
    id: 'subagent.send',
    args,
    json: command.json,
    events: command.events === true,
    io,
    style,
    interrupts: 'turn',
  });
};
