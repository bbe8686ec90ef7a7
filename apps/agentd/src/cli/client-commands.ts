/**
 * Runs one of the operator CLI's client commands over the unix socket or HTTP(S) (modern era):
 * stdin read for `-`, the connection, a run id turned into its handle, then the command's
 * handler from commands/command-table.ts; a wire error becomes one line on stderr and exit 1.
 */
import { WireError } from '@agentd/rpc-frame';
import { type ClientContext, type CommandOf, commandContext } from './commands/command-context.js';
import { type ConnectedKind, handlerOf } from './commands/command-table.js';
import { workspacePrune } from './commands/workspace-prune.js';
import { connectTo, endpointOf } from './connect.js';
import { inert, inertJson } from './inert-text.js';
import { EXIT, refused } from './output.js';
import type { ClientCommand } from './parse-args.js';
import { UsageError } from './parse-args.js';
import { handleOf } from './run-ref.js';

type ConnectedCommand = CommandOf<ConnectedKind>;

async function textArg(value: string, what: string, context: ClientContext): Promise<string> {
  if (value !== '-') return value;
  const text = await context.readStdin();
  if (text.trim() === '') throw new UsageError(`${what} '-' reads stdin, which was empty`);
  return text;
}

/** `-` is replaced by stdin before anything connects: a usage error comes before any side effect. */
async function withStdin(command: ConnectedCommand, context: ClientContext): Promise<ConnectedCommand> {
  if (command.kind === 'spawn')
    return { ...command, instruction: await textArg(command.instruction, 'the instruction', context) };
  if (command.kind === 'send')
    return { ...command, message: await textArg(command.message, 'the message', context) };
  return command;
}

export async function runClientCommand(given: ClientCommand, context: ClientContext): Promise<number> {
  // Works without a daemon too: it connects (or not) itself.
  if (given.kind === 'workspace-prune') return workspacePrune(given, context);
  let command = await withStdin(given, context);
  const client = await connectTo(endpointOf(command.connection, context.env, context.cwd), context.version);
  try {
    // Commands that name a run take its handle or its run id.
    if ('handle' in command && command.handle !== undefined) {
      const found = await handleOf(client, command.handle);
      if ('refusal' in found) return refused(context.io, command.json, found.refusal);
      command = { ...command, handle: found.handle };
    }
    return await handlerOf(command.kind)(command, commandContext(client, command, context));
  } catch (error) {
    if (error instanceof WireError) {
      // A wire error may quote what an agent wrote: shown inert like all agent text.
      context.io.err(
        `agentd: error ${error.code}: ${inert(error.message)}${error.data === undefined ? '' : ` ${inertJson(JSON.stringify(error.data))}`}\n`,
      );
      return EXIT.failed;
    }
    throw error;
  } finally {
    client.close();
  }
}
