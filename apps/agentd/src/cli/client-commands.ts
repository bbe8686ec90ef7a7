/** The operator CLI's client commands: call, status, tools, spawn, over the unix socket (modern era). */
import { isJsonObject, type JsonObject, WireError } from '@agentd/rpc-frame';
import { defaultSocketPath } from '../config/runtime-dir.js';
import { ENV_SOCKET } from '../config/settings.js';
import { type Command, UsageError } from './parse-args.js';
import { SocketClient } from './socket-client.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export function socketPath(explicit: string | undefined, env: NodeJS.ProcessEnv): string {
  return explicit ?? (env[ENV_SOCKET] || defaultSocketPath(env));
}

function pretty(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The JSON text of a resource or tool result, parsed when it is JSON. */
function firstText(result: JsonObject, field: 'contents' | 'content'): unknown {
  const items = result[field];
  const first = Array.isArray(items) ? items[0] : undefined;
  const text = isJsonObject(first) && typeof first.text === 'string' ? first.text : undefined;
  if (text === undefined) return result;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Calls an operation whichever way the daemon exposes it: a classic tool, else Code Mode
 * `execute` (whose structured result wraps the operation's value in `result`).
 */
export async function callOperation(
  client: SocketClient,
  kind: string,
  id: string,
  args: JsonObject,
): Promise<{ isError: boolean; value: unknown }> {
  const listed = await client.request('tools/list');
  const tools = Array.isArray(listed.tools) ? (listed.tools as JsonObject[]) : [];
  const classic = `${kind}_${id}`;
  if (tools.some((t) => t.name === classic)) {
    const result = await client.request('tools/call', { name: classic, arguments: args });
    return {
      isError: result.isError === true,
      value: result.structuredContent ?? firstText(result, 'content'),
    };
  }
  if (tools.some((t) => t.name === 'execute')) {
    const code = `return await agentd.${kind}(${JSON.stringify(id)}, ${JSON.stringify(args)});`;
    const result = await client.request('tools/call', { name: 'execute', arguments: { code } });
    const structured = result.structuredContent;
    if (result.isError === true || !isJsonObject(structured)) {
      return { isError: true, value: structured ?? firstText(result, 'content') };
    }
    return { isError: false, value: structured.result };
  }
  throw new Error(`agentd offers neither ${classic} nor execute`);
}

export async function runClientCommand(
  command: Extract<Command, { kind: 'call' | 'status' | 'tools' | 'spawn' }>,
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<number> {
  let params: JsonObject = {};
  if (command.kind === 'call' && command.params !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(command.params);
    } catch (error) {
      throw new UsageError(`params are not valid JSON: ${(error as Error).message}`);
    }
    if (!isJsonObject(parsed)) throw new UsageError('params must be a JSON object');
    params = parsed;
  }
  const client = await SocketClient.connect(socketPath(command.socket, env));
  try {
    switch (command.kind) {
      case 'call':
        io.out(pretty(await client.request(command.method, params)));
        return 0;
      case 'status':
        io.out(
          pretty(firstText(await client.request('resources/read', { uri: 'agent://status' }), 'contents')),
        );
        return 0;
      case 'tools': {
        const listed = await client.request('tools/list');
        for (const tool of (listed.tools as JsonObject[] | undefined) ?? []) {
          const description = typeof tool.description === 'string' ? tool.description.split('\n')[0] : '';
          io.out(`${String(tool.name)}\t${description}\n`);
        }
        return 0;
      }
      case 'spawn': {
        const args: JsonObject = { instruction: command.instruction };
        if (command.agent !== undefined) args.agent = command.agent;
        if (command.async) args.async = true;
        if (command.timeoutMs !== undefined) args.timeoutMs = command.timeoutMs;
        const { isError, value } = await callOperation(client, 'command', 'subagent.spawn', args);
        (isError ? io.err : io.out)(pretty(value));
        const failed =
          isJsonObject(value) &&
          (value.state === 'failed' || value.state === 'timed_out' || value.state === 'cancelled');
        return isError || failed ? 1 : 0;
      }
    }
  } catch (error) {
    if (error instanceof WireError) {
      io.err(
        `agentd: error ${error.code}: ${error.message}${error.data === undefined ? '' : ` ${JSON.stringify(error.data)}`}\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    client.close();
  }
}
