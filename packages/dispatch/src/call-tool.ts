/** tools/call: lookup under the peer's filters, capability and callability checks, argument validation, MRTR, result shaping. */
import { clientExtension, insufficientScope, refuse } from '@agentd/lifecycle';
import { type JsonObject, WireError } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { RegisteredTool } from './catalogue.js';
import { missingCapability as missingInputCapability } from './client-capability.js';
import type { CompiledFilters } from './client-filters.js';
import { runClientInputRound } from './client-input-round.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import type { HandlerContext } from './handler-context.js';
import { isJsonObject } from './json.js';
import { callAsTask } from './task-call.js';
import type { TaskPlan } from './task-runtime.js';
import { runToolHooks } from './tool-call-hooks.js';
import { errorResult, INTERNAL_TOOL_ERROR, isInternalError, toToolResult } from './tool-result.js';
import type { ParseOutcome } from './tool-schema.js';

function visibleTool(
  env: DispatchEnv,
  filters: CompiledFilters,
  name: string,
  context: RequestContext,
): RegisteredTool | undefined {
  const tool = env.catalogue.findTool(name);
  if (!tool || !toolExistsFor(tool, context)) return undefined;
  return (tool.meta ? filters.metaToolVisible(name) : filters.toolVisible(name)) ? tool : undefined;
}

/** A tool with `onlyForExtension` exists only for a client that declared that extension. */
export function toolExistsFor(
  tool: { onlyForExtension: string | undefined },
  context: RequestContext,
): boolean {
  const id = tool.onlyForExtension;
  return id === undefined || clientExtension(context.clientCapabilities, id) !== undefined;
}

function readCallParams(params: JsonObject): { name: string; args: Record<string, unknown> } {
  const { name } = params;
  if (typeof name !== 'string' || name === '') {
    throw refuse.invalidParams('name must be a non-empty string');
  }
  const args = params.arguments ?? {};
  if (!isJsonObject(args)) throw refuse.invalidParams('arguments must be an object');
  return { name, args };
}

/** Throws synchronously for a bad name or arguments; the dispatcher turns that into a rejection. */
export function callTool(env: DispatchEnv, params: JsonObject, context: RequestContext): Promise<JsonObject> {
  const { name, args } = readCallParams(params);
  const filters = env.filters(context.peer);
  const tool = visibleTool(env, filters, name, context);
  if (!tool) {
    const known = env.stepUp ? env.catalogue.findTool(name) : undefined;
    const missing =
      known !== undefined && toolExistsFor(known, context) ? filters.missingScopes?.(name) : undefined;
    throw missing === undefined ? refuse.unknownTool(name) : insufficientScope(missing);
  }
  return runTool(env, filters, tool, args, params, context);
}

/** An answer known now, shaped for the era (finishResult runs on every path, no extra hop). */
function answered(context: RequestContext, result: JsonObject): Promise<JsonObject> {
  return Promise.resolve(finishResult(context, result));
}

/** Checks, validation and the handler; throws synchronously only for protocol errors. */
function runTool(
  env: DispatchEnv,
  filters: CompiledFilters,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const plan = env.tasks?.plan(tool, params, context);
  const lacking = requiredCapabilities(tool, context.clientCapabilities);
  if (lacking) {
    if (context.era === 'modern') {
      throw refuse.missingClientCapability(lacking);
    }
    return answered(
      context,
      errorResult(
        `Tool ${tool.name} needs client capabilities this client did not declare: ${Object.keys(lacking).join(', ')}`,
      ),
    );
  }
  const refusal = filters.callRefusal(tool.name, args);
  if (refusal !== undefined) return answered(context, errorResult(refusal));
  let parsed: ParseOutcome | Promise<ParseOutcome>;
  try {
    parsed = tool.parse(args);
  } catch (error) {
    return answered(context, failureResult(env, tool, error));
  }
  // Most validators answer synchronously: no promise hop unless the library's validate is async.
  if (parsed instanceof Promise) {
    return parsed.then(
      (outcome) => runParsed(env, tool, outcome, args, plan, params, context),
      (error: unknown) => finishResult(context, failureResult(env, tool, error)),
    );
  }
  return runParsed(env, tool, parsed, args, plan, params, context);
}

function runParsed(
  env: DispatchEnv,
  tool: RegisteredTool,
  parsed: ParseOutcome,
  args: Record<string, unknown>,
  plan: TaskPlan | undefined,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  if (!parsed.ok)
    return answered(context, errorResult(env.invalidArgumentsMessage(parsed.issues, tool.name)));
  const input = parsed.value as Record<string, unknown>;
  const target = { method: 'tools/call', name: tool.name, arguments: args } as const;
  const run = (handlerContext: HandlerContext): Promise<JsonObject> =>
    invoke(env, tool, input, handlerContext);
  if (plan?.kind === 'task' && env.tasks !== undefined) {
    return callAsTask(env, env.tasks, context, params, target, plan, {
      run,
      fail: (error) => failureResult(env, tool, error),
      missingCapability: (message) =>
        errorResult(`Tool ${tool.name} needs a client capability this client did not declare: ${message}`),
    }).then((result) => finishResult(context, result));
  }
  return runClientInputRound(context, params, target, env.codec, run).then(
    (outcome) => {
      if (outcome.kind === 'complete') return finishResult(context, outcome.value);
      if (outcome.kind === 'input_required') return finishResult(context, outcome.result);
      return finishResult(
        context,
        errorResult(
          `Tool ${tool.name} needs a client capability this client did not declare: ${outcome.error.message}`,
        ),
      );
    },
    (error: unknown) => finishResult(context, failureResult(env, tool, error)),
  );
}

/** The handler and result shaping, inside the `useToolCall` hooks when there are any. */
function invoke(
  env: DispatchEnv,
  tool: RegisteredTool,
  input: Record<string, unknown>,
  context: HandlerContext,
): Promise<JsonObject> {
  if (env.toolHooks.length === 0) return runHandler(tool, input, context);
  return runToolHooks(env.toolHooks, env.logger, tool.name, input, context, (args) =>
    runHandler(tool, args, context),
  );
}

/** The handler's value as a tool result; a handler that answers synchronously costs no extra hop. */
function runHandler(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  context: HandlerContext,
): Promise<JsonObject> {
  let value: unknown;
  try {
    value = tool.handler(args, context);
    if (!isThenable(value))
      return Promise.resolve(toToolResult(value, context.era, tool.name, tool.parseOutput));
  } catch (error) {
    return Promise.reject(error);
  }
  return Promise.resolve(value).then((settled) =>
    toToolResult(settled, context.era, tool.name, tool.parseOutput),
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A handler's throw as a tool result: WireErrors are rethrown (protocol errors), internals logged and hidden. */
function failureResult(env: DispatchEnv, tool: RegisteredTool, error: unknown): JsonObject {
  if (error instanceof WireError) throw error;
  if (isInternalError(error)) {
    env.logger.error('tool handler failed', { tool: tool.name, error: describe(error) });
    return errorResult(INTERNAL_TOOL_ERROR);
  }
  return errorResult((error as Error).message);
}

function requiredCapabilities(tool: RegisteredTool, declared: JsonObject): JsonObject | undefined {
  const required = tool.requiredClientCapabilities;
  if (!required) return undefined;
  const lacking: JsonObject = {};
  for (const [capability, value] of Object.entries(required)) {
    if (capability === 'elicitation') {
      const missing = missingInputCapability(
        'elicitation/create',
        isJsonObject(value) && isJsonObject(value.url) ? { mode: 'url' } : {},
        declared,
      );
      if (missing) Object.assign(lacking, missing);
    } else if (capability === 'extensions') {
      const missing = missingExtensions(value, declared);
      if (missing) lacking.extensions = missing;
    } else if (!isJsonObject(declared[capability])) lacking[capability] = value;
  }
  return Object.keys(lacking).length > 0 ? lacking : undefined;
}

/** The required extensions (id → settings) the client did not declare. */
function missingExtensions(required: unknown, declared: JsonObject): JsonObject | undefined {
  if (!isJsonObject(required)) return undefined;
  const lacking: JsonObject = {};
  for (const [id, settings] of Object.entries(required)) {
    if (clientExtension(declared, id) === undefined) lacking[id] = settings;
  }
  return Object.keys(lacking).length > 0 ? lacking : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
