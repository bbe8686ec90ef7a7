/** `agentd call METHOD [PARAMS]` and `agentd tools`: plain MCP requests, answered as the daemon sends them. */
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import { pretty } from '../format.js';
import { EXIT } from '../output.js';
import { UsageError } from '../parse-args.js';
import type { CommandHandler } from './command-context.js';

export const callMethod: CommandHandler<'call'> = async (command, { client, io }) => {
  let params: JsonObject = {};
  if (command.params !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(command.params);
    } catch (error) {
      throw new UsageError(`params are not valid JSON: ${(error as Error).message}`);
    }
    if (!isJsonObject(parsed)) throw new UsageError('params must be a JSON object');
    params = parsed;
  }
  io.out(pretty(await client.request(command.method, params)));
  return EXIT.ok;
};

export const listTools: CommandHandler<'tools'> = async (command, { client, io }) => {
  const listed = await client.request('tools/list');
  const tools = (listed.tools as JsonObject[] | undefined) ?? [];
  if (command.json) io.out(pretty(tools));
  else
    for (const tool of tools) {
      const description = typeof tool.description === 'string' ? tool.description.split('\n')[0] : '';
      io.out(`${String(tool.name)}\t${description}\n`);
    }
  return EXIT.ok;
};
