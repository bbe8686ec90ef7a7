/** The operator CLI's client commands, over the unix socket or HTTP(S) (modern era). */
import { isJsonObject, type JsonObject, WireError } from '@agentd/rpc-frame';
import { approveRun, closeRun } from './approve-close.js';
import { connectTo, endpointOf } from './connect.js';
import { daemonStatusText, eventText, FAILED_STATES, pretty, runsText, statusText } from './format.js';
import { historyRuns, runLogs } from './history-commands.js';
import { inert, inertJson } from './inert-text.js';
import { wholeInventory } from './inventory-pages.js';
import type { McpClient } from './mcp-client.js';
import { callOperation, readJson } from './operation-call.js';
import type { ClientCommand } from './parse-args.js';
import { UsageError } from './parse-args.js';
import { handleOf } from './run-ref.js';
import { interruptible, runStreaming } from './run-streaming.js';
import { PLAIN_STYLE, paintState, type TermStyle } from './term-style.js';
import { EXIT_TRUNCATED, isTruncated, truncationNotice } from './truncation.js';
import { uiCommand } from './ui-command.js';
import { workspacePrune } from './workspace-command.js';

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
  /** Terminal or pipe (term-style.ts); plain when absent. */
  style?: TermStyle;
}

/** Exit codes (documented in `agentd --help`). */
const EXIT = { ok: 0, failed: 1, usage: 2, waitTimedOut: 3, truncated: EXIT_TRUNCATED } as const;

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
  io.err(`agentd: ${inert(typeof value === 'string' ? value : JSON.stringify(value))}\n`);
  return EXIT.failed;
}

/** A failed run exits 1; one whose output was shown cut says so on stderr and exits 4. */
function runExit(status: unknown, io: Output): number {
  if (isJsonObject(status) && FAILED_STATES.has(String(status.state))) return EXIT.failed;
  if (!isTruncated(status)) return EXIT.ok;
  io.err(truncationNotice(status));
  return EXIT.truncated;
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

/** `spawn --agent NAME`: a name the daemon does not know is answered with the ones it does. */
async function unknownAgent(client: McpClient, agent: string | undefined): Promise<string | undefined> {
  if (agent === undefined) return undefined;
  const status = await readJson(client, 'agent://status').catch(() => undefined);
  const agents = isJsonObject(status) && Array.isArray(status.agents) ? status.agents.map(String) : undefined;
  if (agents === undefined || agents.includes(agent)) return undefined;
  return `unknown agent ${JSON.stringify(agent)} (agents: ${agents.join(', ')})`;
}

async function run(client: McpClient, command: ClientCommand, context: ClientContext): Promise<number> {
  const { io, json } = { io: context.io, json: command.json };
  const eventLines = command.events === true;
  const base = context.style ?? PLAIN_STYLE;
  // An agent's colours only ever reach a terminal that shows colour, and only when asked for.
  const style: TermStyle = { ...base, agentColours: command.agentColours === true && base.colourOut };
  // Commands that name a run take its handle or its run id.
  if ('handle' in command && command.handle !== undefined) {
    const found = await handleOf(client, command.handle);
    if ('refusal' in found) return refused(io, json, found.refusal);
    command = { ...command, handle: found.handle };
  }
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
        show(await readJson(client, 'agent://status'), (v) => daemonStatusText(v, style.colourOut));
        return EXIT.ok;
      }
      {
        const { isError, value } = await callOperation(client, 'query', 'subagent.status', {
          handle: command.handle,
        });
        if (isError) return refused(io, json, value);
        show(value, (v) => statusText(v, style.colourOut, style.agentColours));
        // `status` reports (a failed run is not its failure); only a cut output changes its exit code.
        if (!isTruncated(value)) return EXIT.ok;
        io.err(truncationNotice(value));
        return EXIT.truncated;
      }
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
    case 'logs':
      return runLogs(client, command, io);
    case 'runs': {
      if (command.all === true) return historyRuns(client, command, io, style.colourOut);
      let inventory: unknown;
      try {
        inventory = await wholeInventory(client);
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
      show(subagents, (v) => runsText(v as unknown[], fleet, style.colourOut));
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
        json,
        events: eventLines,
        io,
        style,
        interrupts: 'run',
      });
    }
    case 'attach': {
      // What is known before following: the run id and start time for the status line.
      const before = await callOperation(client, 'query', 'subagent.status', { handle: command.handle });
      if (before.isError) return refused(io, json, before.value);
      const status = isJsonObject(before.value) ? before.value : {};
      const startedAt = Date.parse(String(status.startedAt));
      const followed = {
        handle: command.handle,
        ...(typeof status.runId === 'string' ? { runId: status.runId } : {}),
        ...(Number.isNaN(startedAt) ? {} : { startedAt }),
      };
      if (!json && status.terminal !== true)
        io.err(
          `agentd: attached to run ${String(status.runId)} (${String(status.agent)}, ${String(status.state)})\n`,
        );
      const attach = runStreaming(client, {
        id: 'subagent.attach',
        args: { handle: command.handle },
        json,
        events: eventLines,
        io,
        style,
        interrupts: 'watch',
        followed,
      });
      if (command.timeoutMs === undefined) return attach;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gaveUp = new Promise<number>((resolve) => {
        timer = setTimeout(() => {
          io.err(`\nagentd: ${String(status.runId)} is still running after ${command.timeoutMs} ms\n`);
          resolve(EXIT.waitTimedOut);
        }, command.timeoutMs);
      });
      try {
        return await Promise.race([attach, gaveUp]);
      } finally {
        clearTimeout(timer);
      }
    }
    case 'send': {
      const args: JsonObject = {
        handle: command.handle,
        message: command.message,
      };
      if (command.timeoutMs !== undefined) args.timeoutMs = command.timeoutMs;
      return runStreaming(client, {
        id: 'subagent.send',
        args,
        json,
        events: eventLines,
        io,
        style,
        interrupts: 'turn',
      });
    }
    case 'approve':
      return approveRun(client, command, io, style);
    case 'close':
      return closeRun(client, command, io, style);
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
      show(status, (v) => statusText(v, style.colourOut, style.agentColours));
      return runExit(status, io);
    }
    case 'cancel':
      if (command.all) {
        const args: JsonObject = command.reason === undefined ? {} : { reason: command.reason };
        return operate('command', 'cancel', args, (v) => {
          const cancelled = isJsonObject(v) && Array.isArray(v.cancelled) ? v.cancelled : [];
          return `cancelled ${cancelled.length} run(s)\n${cancelled.map((c) => `  ${isJsonObject(c) ? String(c.handle) : ''}\n`).join('')}`;
        });
      }
      return cancelRun(client, command, io, style);
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
    case 'ui':
      return uiCommand(client, command, context);
    case 'workspace-prune':
      return workspacePrune(command, context);
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

/**
 * `agentd cancel RUN`: a run that already ended is not cancelled after the fact; the operator is
 * told how it ended (exit 0: it is not running, which is what cancel is for).
 */
async function cancelRun(
  client: McpClient,
  command: Extract<ClientCommand, { kind: 'cancel' }>,
  io: Output,
  style: TermStyle,
): Promise<number> {
  const handle = command.handle as string;
  const before = await callOperation(client, 'query', 'subagent.status', { handle });
  if (before.isError) return refused(io, command.json, before.value);
  let status = before.value;
  let already = isJsonObject(status) && status.terminal === true;
  if (!already) {
    const args: JsonObject = { handle, ...(command.reason === undefined ? {} : { reason: command.reason }) };
    const after = await callOperation(client, 'command', 'subagent.cancel', args);
    if (after.isError) return refused(io, command.json, after.value);
    status = after.value;
    // It ended on its own between the two calls.
    already = isJsonObject(status) && status.state !== 'cancelled';
  }
  if (command.json) {
    io.out(pretty(isJsonObject(status) && already ? { ...status, alreadyEnded: true } : status));
    return EXIT.ok;
  }
  if (already && isJsonObject(status)) {
    const state = String(status.state);
    io.out(
      `run ${String(status.runId)} had already ended: ${paintState(style.colourOut, state)}${
        typeof status.endedAt === 'string' ? ` at ${status.endedAt}` : ''
      }; nothing to cancel\n`,
    );
    return EXIT.ok;
  }
  io.out(statusText(status, style.colourOut, style.agentColours));
  return EXIT.ok;
}

/** `agentd events [--follow]`: pages through agent://events; following polls for new ones. */
async function events(
  client: McpClient,
  command: Extract<ClientCommand, { kind: 'events' }>,
  context: ClientContext,
): Promise<number> {
  let after = command.after ?? 0;
  const colour = (context.style ?? PLAIN_STYLE).colourOut;
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
        context.io.out(command.json ? `${JSON.stringify(event)}\n` : eventText(event, colour));
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
  // Works without a daemon too: it connects (or not) itself.
  if (given.kind === 'workspace-prune') return workspacePrune(given, context);
  const command = await withStdin(given, context);
  const client = await connectTo(endpointOf(command.connection, context.env, context.cwd), context.version);
  try {
    return await run(client, command, context);
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
