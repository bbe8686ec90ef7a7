/**
 * The fixtures of the suite's `tasks-*` scenarios (SEP-2663): a sync tool, task tools that sleep,
 * fail, crash or ask the client for input, and one that gathers input by multi-round-trip before
 * it becomes a task. The same tools serve 2025-11-25 task-augmented calls.
 */
import type { Dispatcher, HandlerContext } from '@agentd/dispatch';
import { JsonRpcErrorCode, WireError } from '@agentd/rpc-frame';

type Args = Record<string, unknown>;

const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean', description: 'Confirm the action' } },
  required: ['confirm'],
};

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', description: 'Your name' } },
  required: ['name'],
};

/** Resolves after `ms`, or rejects as soon as the task (or call) is cancelled. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('cancelled'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function contentOf(answer: Record<string, unknown>): Record<string, unknown> {
  const content = answer.content;
  return typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : {};
}

export function registerTaskTools(dispatcher: Dispatcher): void {
  dispatcher.registerTool({
    name: 'greet',
    description: 'Greets someone synchronously (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    handler: (args: Args) => `Hello, ${typeof args.name === 'string' ? args.name : 'World'}!`,
  });
  dispatcher.registerTool({
    name: 'slow_compute',
    description: 'Sleeps for `seconds` then answers; runs as a task for clients that take tasks',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 600 }, label: { type: 'string' } },
    },
    task: 'optional',
    handler: async (args: Args, ctx: HandlerContext) => {
      const seconds = typeof args.seconds === 'number' ? args.seconds : 1;
      await sleep(seconds * 1000, ctx.signal);
      return `Computed ${typeof args.label === 'string' ? args.label : 'result'} after ${seconds}s`;
    },
  });
  dispatcher.registerTool({
    name: 'failing_job',
    description: 'Always ends with a tool execution error; only runs as a task',
    task: 'required',
    handler: async (_args: Args, ctx: HandlerContext) => {
      await sleep(200, ctx.signal);
      throw new Error('The job failed: simulated tool error');
    },
  });
  dispatcher.registerTool({
    name: 'protocol_error_job',
    description: 'Ends with a JSON-RPC (protocol) error',
    task: 'optional',
    handler: async (_args: Args, ctx: HandlerContext) => {
      await sleep(100, ctx.signal);
      // catalogue-exempt: this fixture's point is a protocol error with a text of its own.
      throw new WireError(JsonRpcErrorCode.InternalError, 'Internal error: the job crashed');
    },
  });
  dispatcher.registerTool({
    name: 'confirm_delete',
    description: 'Asks the client to confirm, then deletes (pretend)',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    task: 'optional',
    handler: async (args: Args, ctx: HandlerContext) => {
      const filename = typeof args.filename === 'string' ? args.filename : 'file';
      const answer = await ctx.elicit(
        { mode: 'form', message: `Delete ${filename}?`, requestedSchema: CONFIRM_SCHEMA },
        { key: 'confirm' },
      );
      const confirmed = answer.action === 'accept' && contentOf(answer).confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  });
  dispatcher.registerTool({
    name: 'multi_input',
    description: 'Asks two questions at once',
    task: 'optional',
    handler: async (_args: Args, ctx: HandlerContext) => {
      const [first, second] = await Promise.all([
        ctx.elicit({ mode: 'form', message: 'First name?', requestedSchema: NAME_SCHEMA }, { key: 'first' }),
        ctx.elicit(
          { mode: 'form', message: 'Second name?', requestedSchema: NAME_SCHEMA },
          { key: 'second' },
        ),
      ]);
      return `Got ${String(contentOf(first).name)} and ${String(contentOf(second).name)}`;
    },
  });
  dispatcher.registerTool({
    name: 'test_tool_with_task',
    description: 'Asks for a name by multi-round-trip, then continues as a task',
    task: { support: 'required', start: 'handler' },
    handler: async (_args: Args, ctx: HandlerContext) => {
      const answer = await ctx.elicit(
        { mode: 'form', message: 'What is your name?', requestedSchema: NAME_SCHEMA },
        { key: 'user_name' },
      );
      await ctx.detach();
      await sleep(100, ctx.signal);
      return `Hello, ${String(contentOf(answer).name)}! (finished as a task)`;
    },
  });
}
