/** `agentd spawn INSTRUCTION`: starts a run and follows it, or with `--async` prints its status. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { statusText } from '../format.js';
import type { McpClient } from '../mcp-client.js';
import { readJson } from '../operation-call.js';
import { EXIT } from '../output.js';
import { runStreaming } from '../run-streaming.js';
import type { CommandHandler } from './command-context.js';

/** `spawn --agent NAME`: a name the daemon does not know is answered with the ones it does. */
async function unknownAgent(client: McpClient, agent: string | undefined): Promise<string | undefined> {
  if (agent === undefined) return undefined;
  const status = await readJson(client, 'agent://status').catch(() => undefined);
  const agents = isJsonObject(status) && Array.isArray(status.agents) ? status.agents.map(String) : undefined;
  if (agents === undefined || agents.includes(agent)) return undefined;
  return `unknown agent ${JSON.stringify(agent)} (agents: ${agents.join(', ')})`;
}

export const spawnRun: CommandHandler<'spawn'> = async (command, { client, io, style, operate }) => {
  const args: JsonObject = { instruction: command.instruction };
  if (command.agent !== undefined) args.agent = command.agent;
  if (command.async) args.async = true;
  if (command.warm) args.warm = true;
  if (command.timeoutMs !== undefined) args.timeoutMs = command.timeoutMs;
  if (command.cwd !== undefined) args.cwd = command.cwd;
  // Checked first so the answer is in CLI terms, not a schema's enum error.
  const unknown = await unknownAgent(client, command.agent);
  if (unknown !== undefined) {
    io.err(`agentd: ${unknown}\n`);
    return EXIT.usage;
  }
  if (command.async)
    return operate('command', 'subagent.spawn', args, (v) =>
      statusText(v, style.colourOut, style.agentColours),
    );
  return runStreaming(client, {
    id: 'subagent.spawn',
    args,
    json: command.json,
    events: command.events === true,
    io,
    style,
    interrupts: 'run',
  });
};
