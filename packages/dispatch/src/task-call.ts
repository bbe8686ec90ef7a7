/**
 * A `tools/call` answered with a task: the task is created (durably) and the call answers
 * `CreateTaskResult`, while the handler goes on in the background with a task context (the
 * task's abort signal, client input through the task, no progress or log notifications).
 */
import { createTaskResult, legacyVersionHasTasks } from '@agentd/lifecycle/tasks';
import { type JsonObject, toWireError } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import { type RoundTarget, runClientInputRound } from './client-input-round.js';
import type { DispatchEnv } from './dispatch-env.js';
import { createHandlerContext, type HandlerContext } from './handler-context.js';
import { TaskInputSession } from './task-input.js';
import type { LiveTask, TaskPlan, TaskRuntime } from './task-runtime.js';

type Plan = Extract<TaskPlan, { kind: 'task' }>;

/** What the tool call supplies: how to run the handler, and how a throw becomes a tool result. */
export interface TaskWork {
  run(context: HandlerContext): Promise<JsonObject>;
  /** Maps a thrown value to a tool result; rethrows a WireError (the task then fails). */
  fail(error: unknown): JsonObject;
  /** Legacy only: the answer for a handler that needed a capability the client lacks. */
  missingCapability(message: string): JsonObject;
}

export async function callAsTask(
  env: DispatchEnv,
  runtime: TaskRuntime,
  context: RequestContext,
  params: JsonObject,
  target: RoundTarget,
  plan: Plan,
  work: TaskWork,
): Promise<JsonObject> {
  if (plan.start === 'call') {
    let begun: Awaited<ReturnType<TaskRuntime['begin']>>;
    try {
      begun = await runtime.begin(context, 'tools/call', plan);
    } catch (error) {
      // Too many tasks for this principal: the model is told why, as for any tool failure.
      return work.fail(error);
    }
    const { record, live } = begun;
    const control = createHandlerContext(
      context,
      new TaskInputSession(context, live),
      live.controller.signal,
    );
    void settle(runtime, live, () => work.run(detached(control.context, live)), work).finally(() =>
      control.finish(),
    );
    return createTaskResult(record, context.era);
  }
  // `start: 'handler'`: a normal call (input rounds included) until the handler detaches.
  let created: JsonObject | undefined;
  let onDetached: (result: JsonObject) => void = () => {};
  const detachedAnswer = new Promise<JsonObject>((resolve) => {
    onDetached = resolve;
  });
  let live: LiveTask | undefined;
  const detach = async (): Promise<string | undefined> => {
    if (live !== undefined) return live.taskId;
    const begun = await runtime.begin(context, 'tools/call', plan);
    live = begun.live;
    created = createTaskResult(begun.record, context.era);
    onDetached(created);
    return live.taskId;
  };
  const round = runClientInputRound(context, params, target, env.codec, (handlerContext) =>
    work.run(switchable(handlerContext, () => live, detach)),
  );
  const inline = round.then(
    (outcome): JsonObject => {
      if (outcome.kind === 'complete') return outcome.value;
      if (outcome.kind === 'input_required') return outcome.result;
      return work.missingCapability(outcome.error.message);
    },
    (error: unknown) => work.fail(error),
  );
  const first = await Promise.race([
    inline.then((result) => ({ result })),
    detachedAnswer.then((task) => ({ task })),
  ]);
  if ('task' in first) {
    const running = live as unknown as LiveTask;
    void record(runtime, running, inline);
    return first.task;
  }
  if (live !== undefined && created !== undefined) {
    // Detached and finished in the same turn: the client still gets the task it was promised.
    await record(runtime, live, inline);
    return created;
  }
  return first.result;
}

/** Runs the work and records its outcome; a WireError fails the task, anything else was mapped by `fail`. */
async function settle(
  runtime: TaskRuntime,
  live: LiveTask,
  run: () => Promise<JsonObject>,
  work: TaskWork,
): Promise<void> {
  let result: JsonObject;
  try {
    result = await run();
  } catch (error) {
    try {
      result = work.fail(error);
    } catch (wire) {
      await runtime.finish(live, { error: toWireError(wire) });
      return;
    }
  }
  await runtime.finish(live, { result: finishInlined(result, live) });
}

async function record(runtime: TaskRuntime, live: LiveTask, outcome: Promise<JsonObject>): Promise<void> {
  try {
    await runtime.finish(live, { result: finishInlined(await outcome, live) });
  } catch (error) {
    await runtime.finish(live, { error: toWireError(error) });
  }
}

/** The inlined result is the augmented request's result: `resultType` in the modern era. */
function finishInlined(result: JsonObject, live: LiveTask): JsonObject {
  if (live.era === 'modern' && result.resultType === undefined) return { ...result, resultType: 'complete' };
  return result;
}

/** A task's view of a handler context: task signal, no request-scoped notifications. */
function detached(base: HandlerContext, live: LiveTask): HandlerContext {
  return Object.create(base, {
    signal: { get: () => live.controller.signal, enumerable: true },
    progress: { value: () => false },
    log: { value: () => false },
    notify: { value: () => undefined },
    sendRequest: { value: undefined },
    closeStream: { value: undefined },
    detach: { value: () => Promise.resolve(live.taskId) },
  }) as HandlerContext;
}

/** Before `detach()`: the request's context; after: the task's (signal, input, no notifications). */
function switchable(
  base: HandlerContext,
  current: () => LiveTask | undefined,
  detach: () => Promise<string | undefined>,
): HandlerContext {
  let taskInput: TaskInputSession | undefined;
  const input = (live: LiveTask): TaskInputSession => {
    taskInput ??= new TaskInputSession(base.request, live);
    return taskInput;
  };
  const viaTask =
    (
      method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list',
      original: (params: JsonObject, options?: { key?: string }) => Promise<JsonObject>,
    ) =>
    (params: JsonObject, options?: { key?: string }): Promise<JsonObject> => {
      const live = current();
      return live === undefined ? original(params, options) : input(live).ask(method, params, options?.key);
    };
  return Object.create(base, {
    signal: { get: () => current()?.controller.signal ?? base.signal, enumerable: true },
    progress: {
      value: (...a: Parameters<HandlerContext['progress']>) => (current() ? false : base.progress(...a)),
    },
    log: { value: (...a: Parameters<HandlerContext['log']>) => (current() ? false : base.log(...a)) },
    elicit: { value: viaTask('elicitation/create', (p, o) => base.elicit(p, o) as Promise<JsonObject>) },
    sample: { value: viaTask('sampling/createMessage', (p, o) => base.sample(p, o)) },
    listRoots: {
      value: (options?: { key?: string }) => viaTask('roots/list', (_p, o) => base.listRoots(o))({}, options),
    },
    detach: { value: detach },
  }) as HandlerContext;
}

/** A tools/list entry; a 2025-11-25 session also sees `execution.taskSupport` of task tools. */
export function listedTool(
  tool: { entry: JsonObject; task: { support: string } | undefined },
  context: RequestContext,
): JsonObject {
  if (
    tool.task === undefined ||
    context.era !== 'legacy' ||
    !legacyVersionHasTasks(context.protocolVersion)
  ) {
    return tool.entry;
  }
  return { ...tool.entry, execution: { taskSupport: tool.task.support } };
}
