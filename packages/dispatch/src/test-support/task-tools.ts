/** Test helper: a dispatcher with task tools whose progress the test controls, behind a real core on unix sockets. */
import type { JsonObject } from '@agentd/rpc-frame';
import { WireError } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import { type SocketHarness, socketHarness } from '@agentd/test-support';
import { vi } from 'vitest';
import { Dispatcher } from '../dispatcher.js';
import type { DispatcherOptions } from '../dispatcher-options.js';

export const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

export interface Gate {
  open(value?: string): void;
  readonly signals: AbortSignal[];
}

/** Tools: `gated` (waits for the test), `asks` (elicits a name), `broken` (protocol error), `sync`, `strict` (required). */
export function taskDispatcher(options: DispatcherOptions = {}): { dispatcher: Dispatcher; gate: Gate } {
  const waiting: ((value: string) => void)[] = [];
  const signals: AbortSignal[] = [];
  const gate: Gate = {
    open: (value = 'done') => {
      for (const release of waiting.splice(0)) release(value);
    },
    signals,
  };
  const dispatcher = new Dispatcher({ logger: silentLogger, ...options });
  dispatcher.registerTool({
    name: 'gated',
    description: 'Finishes when the test opens the gate',
    task: 'optional',
    handler: async (_args, ctx) => {
      signals.push(ctx.signal);
      const value = await new Promise<string>((resolve, reject) => {
        waiting.push(resolve);
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
      if (value === 'tool-error') throw new Error('the job failed');
      return `gated: ${value}`;
    },
  });
  dispatcher.registerTool({
    name: 'asks',
    description: 'Asks for a name, then greets',
    task: 'optional',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          mode: 'form',
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
        { key: 'name' },
      );
      return `Hello, ${String((answer.content as JsonObject | undefined)?.name)}!`;
    },
  });
  dispatcher.registerTool({
    name: 'broken',
    description: 'Fails with a protocol error',
    task: 'optional',
    handler: () => {
      throw new WireError(-32603, 'the job crashed');
    },
  });
  dispatcher.registerTool({ name: 'sync', description: 'A normal tool', handler: () => 'plain' });
  dispatcher.registerTool({
    name: 'typed',
    description: 'A task tool with a required argument',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    task: 'optional',
    handler: (args) => `n=${String(args.n)}`,
  });
  dispatcher.registerTool({
    name: 'strict',
    description: 'Only as a task',
    task: 'required',
    handler: () => 'strict done',
  });
  dispatcher.registerTool({
    name: 'short',
    description: 'A task with a 60 ms lifetime',
    task: { support: 'optional', ttlMs: 60 },
    handler: async (_args, ctx) => {
      signals.push(ctx.signal);
      await new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    },
  });
  dispatcher.registerTool({
    name: 'later',
    description: 'Asks by multi-round-trip first, then detaches',
    task: { support: 'required', start: 'handler' },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        { key: 'who' },
      );
      const taskId = await ctx.detach();
      // Complete a turn after detaching, so the caller sees the task working first.
      await new Promise((resolve) => setImmediate(resolve));
      return `task ${taskId === undefined ? 'none' : 'yes'} for ${String((answer.content as JsonObject).name)}`;
    },
  });
  return { dispatcher, gate };
}

export async function serve(dispatcher: Dispatcher): Promise<SocketHarness> {
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'task-test', version: '1.0.0' },
    logger: silentLogger,
  });
  dispatcher.onTaskStatus((event) =>
    core.notifyTaskStatus(event.taskId, event.message, event.creatorConnectionId),
  );
  return socketHarness(core);
}

/** Polls `get` until `done` says the task got there (or gives up after 10 s). */
export function until<T>(get: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await get();
      if (!done(value)) throw new Error(`the task did not get there: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: 10_000, interval: 20 },
  );
}
