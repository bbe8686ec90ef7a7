/** The operator CLI's client commands, over the unix socket or HTTP(S) (modern era). */
import { isJsonObject, type JsonObject, WireError } from '@agentd/rpc-frame';
import { connectTo, endpointOf } from './connect.js';
import { daemonStatusText, eventText, FAILED_STATES, pretty, runsText, statusText } from './format.js';
import type { McpClient } from './mcp-client.js';
import { callOperation, readJson } from './operation-call.js';
import type { ClientCommand } from './parse-args.js';
import { UsageError } from './parse-args.js';
import { interruptible, runStreaming } from './run-streaming.js';

interface Output {
  out(text: string): void;
  err(text: string): void;
}

export interface ClientContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  io: Output;
  /** The instruction or message given as `-`. */
  readStdin: () => Promise<string>;
}

/** Exit codes (documented in `agentd --help`). */
const EXIT = { ok: 0, failed: 1, usage: 2, waitTimedOut: 3 } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function textArg(value: string, what: string, context: ClientContext): Promise<string> {
  if (value !== '-') return value;
  const text = await context.readStdin();
  if (text.trim() === '') throw new UsageError(`${what} '-' reads stdin, which was empty`);
  return text;
}

/** A refused or failed operation: its text on stderr, exit 1. */
function refused(io: Output, json: boolean, value: unknown): number {
  if (json) io.out(pretty({ error: value }));
  io.err(`agentd: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  return EXIT.failed;
}

function runExit(status: unknown): number {
  return isJsonObject(status) && FAILED_STATES.has(String(status.state)) ? EXIT.failed : EXIT.ok;
}

/** Polls a run until it is terminal or `timeoutMs` passed; undefined when it gave up. */
async function waitTerminal(
  client: McpClient,
  handle: string,
  timeoutMs: number | undefined,
  signal?: AbortSignal,
): Promise<{ status?: JsonObject; refusal?: unknown }> {
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  let pause = 50;
  for (;;) {
    const { isError, value } = await callOperation(client, 'query', 'subagent.status', { handle });
    if (isError) return { refusal: value };
    if (isJsonObject(value) && value.terminal === true) return { status: value };
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return {};
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, 500);
  }
}

async function run(client: McpClient, command: ClientCommand, context: ClientContext): Promise<number> {
  const { io, json } = { io: context.io, json: command.json };
  const show = (value: unknown, text: (v: unknown) => string) => io.out(json ? pretty(value) : text(value));
  const operate = async (
    kind: 'query' | 'command',
    id: string,
    args: JsonObject,
    text: (v: unknown) => string = pretty,
  ): Promise<number> => {
    const { isError, value } = await callOperation(client, kind, id, args);
    if (isError) return refused(io, json, value);
    show(value, text);
    return EXIT.ok;
  };
  switch (command.kind) {
    case 'call': {
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
    }
    case 'status':
      if (command.handle === undefined) {
        show(await readJson(client, 'agent://status'), daemonStatusText);
        return EXIT.ok;
      }
      return operate('query', 'subagent.status', { handle: command.handle }, statusText);
    case 'tools': {
      const listed = await client.request('tools/list');
      const tools = (listed.tools as JsonObject[] | undefined) ?? [];
      if (json) io.out(pretty(tools));
      else
        for (const tool of tools) {
          const description = typeof tool.description === 'string' ? tool.description.split('\n')[0] : '';
          io.out(`${String(tool.name)}\t${description}\n`);
        }
      return EXIT.ok;
    }
    case 'runs': {
      let inventory: unknown;
      try {
        inventory = await readJson(client, 'agent://inventory');
      } catch (error) {
        if (error instanceof WireError)
          return refused(
            io,
            json,
            'listing runs needs an operator connection (the unix socket, or HTTP with a bearer token)',
          );
        throw error;
      }
      const subagents =
        isJsonObject(inventory) && Array.isArray(inventory.subagents) ? inventory.subagents : [];
      const fleet = isJsonObject(inventory) ? inventory.fleet : undefined;
      show(subagents, (v) => runsText(v as unknown[], fleet));
      return EXIT.ok;
    }
    case 'spawn': {
      const args: JsonObject = {
        instruction: command.instruction,
      };
      if (command.agent !== undefined) args.agent = command.agent;
      if (command.async) args.async = true;
      if (command.warm) args.warm = true;
      if (command.timeoutMs !== undefined) args.timeoutMs = command.timeoutMs;
      if (command.async) return operate('command', 'subagent.spawn', args, statusText);
      return runStreaming(client, { id: 'subagent.spawn', args, json, io, cancels: 'run' });
    }
    case 'send': {
      const args: JsonObject = {
        handle: command.handle,
        message: command.message,
      };
      if (command.timeoutMs !== undefined) args.timeoutMs = command.timeoutMs;
      return runStreaming(client, { id: 'subagent.send', args, json, io, cancels: 'turn' });
    }
    case 'wait': {
      // Interrupting a wait stops waiting; the run itself goes on (cancel it with `agentd cancel`).
      const outcome = await interruptible(io, (signal) =>
        waitTerminal(client, command.handle, command.timeoutMs, signal),
      );
      if (outcome.interrupted !== undefined) return outcome.interrupted;
      const { status, refusal } = outcome.value;
      if (refusal !== undefined) return refused(io, json, refusal);
      if (status === undefined) {
        io.err(`agentd: ${command.handle} is still running after ${command.timeoutMs} ms\n`);
        return EXIT.waitTimedOut;
      }
      show(status, statusText);
      return runExit(status);
    }
    case 'cancel':
      if (command.all) {
        const args: JsonObject = command.reason === undefined ? {} : { reason: command.reason };
        return operate('command', 'cancel', args, (v) => {
          const cancelled = isJsonObject(v) && Array.isArray(v.cancelled) ? v.cancelled : [];
          return `cancelled ${cancelled.length} run(s)\n${cancelled.map((c) => `  ${isJsonObject(c) ? String(c.handle) : ''}\n`).join('')}`;
        });
      }
      return operate(
        'command',
        'subagent.cancel',
        {
          handle: command.handle as string,
          ...(command.reason === undefined ? {} : { reason: command.reason }),
        },
        statusText,
      );
    case 'events':
      return events(client, command, context);
    case 'drain':
      return operate(
        'command',
        'drain',
        command.deadlineMs === undefined ? {} : { deadlineMs: command.deadlineMs },
        (v) =>
          `draining: running subagents get ${isJsonObject(v) ? String(v.deadlineMs) : '?'} ms, then agentd exits\n`,
      );
    case 'lame-duck':
      return operate('command', 'lame-duck', { ready: command.ready }, (v) =>
        isJsonObject(v) && v.ready === true ? 'ready\n' : 'lame duck: not ready (still serving)\n',
      );
    case 'pause':
    case 'resume':
      return operate('command', command.kind, {}, (v) =>
        isJsonObject(v) && v.paused === true
          ? 'paused: new spawns and turns are refused\n'
          : 'accepting spawns\n',
      );
    case 'reload': {
      const { isError, value } = await callOperation(client, 'command', 'reload', {});
      if (isError) return refused(io, json, value);
      const applied = isJsonObject(value) && value.applied === true;
      show(value, (v) => {
        const r = v as JsonObject;
        if (!applied)
          return `rejected; the running config stays:\n${(r.issues as string[]).map((i) => `  ${i}\n`).join('')}`;
        const changed = (r.changed as string[]).join(', ') || 'nothing';
        const restart = (r.restartRequired as string[]).join(', ');
        return `applied (generation ${String(r.generation)}): changed ${changed}${restart === '' ? '' : `; restart required for ${restart}`}\n`;
      });
      return applied ? EXIT.ok : EXIT.failed;
    }
  }
}

/** `agentd events [--follow]`: pages through agent://events; following polls for new ones. */
async function events(
  client: McpClient,
  command: Extract<ClientCommand, { kind: 'events' }>,
  context: ClientContext,
): Promise<number> {
  let after = command.after ?? 0;
  const level = command.level === undefined ? '' : `&level=${command.level}`;
  const outcome = await interruptible(context.io, async (signal) => {
    for (;;) {
      let page: unknown;
      try {
        page = await readJson(client, `agent://events?after=${after}${level}`);
      } catch (error) {
        if (error instanceof WireError)
          return refused(
            context.io,
            command.json,
            'reading events needs an operator connection (the unix socket, or HTTP with a bearer token)',
          );
        throw error;
      }
      const list = isJsonObject(page) && Array.isArray(page.events) ? page.events : [];
      for (const event of list) {
        context.io.out(command.json ? `${JSON.stringify(event)}\n` : eventText(event));
        if (isJsonObject(event) && typeof event.seq === 'number') after = event.seq;
      }
      if (isJsonObject(page) && page.truncated === true) continue;
      if (!command.follow || signal.aborted) return EXIT.ok;
      await sleep(250);
      if (signal.aborted) return EXIT.ok;
    }
  });
  // Ctrl-C is how one stops following: a normal end.
  return outcome.interrupted === undefined ? outcome.value : command.follow ? EXIT.ok : outcome.interrupted;
}

/** `-` is replaced by stdin before anything connects: a usage error comes before any side effect. */
async function withStdin(command: ClientCommand, context: ClientContext): Promise<ClientCommand> {
  if (command.kind === 'spawn')
    return { ...command, instruction: await textArg(command.instruction, 'the instruction', context) };
  if (command.kind === 'send')
    return { ...command, message: await textArg(command.message, 'the message', context) };
  return command;
}

export async function runClientCommand(given: ClientCommand, context: ClientContext): Promise<number> {
  const command = await withStdin(given, context);
  const client = await connectTo(endpointOf(command.connection, context.env, context.cwd), context.version);
  try {
    return await run(client, command, context);
  } catch (error) {
    if (error instanceof WireError) {
      context.io.err(
        `agentd: error ${error.code}: ${error.message}${error.data === undefined ? '' : ` ${JSON.stringify(error.data)}`}\n`,
      );
      return EXIT.failed;
    }
    throw error;
  } finally {
    client.close();
  }
}
