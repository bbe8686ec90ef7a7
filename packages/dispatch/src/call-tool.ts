/** tools/call: lookup under the peer's filters, capability and callability checks, argument validation, MRTR, result shaping. */
import { clientExtension, ErrorCode, insufficientScope } from '@agentd/lifecycle';
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
import { runToolHooks } from './tool-call-hooks.js';
import { errorResult, INTERNAL_TOOL_ERROR, isInternalError, toToolResult } from './tool-result.js';

const MAX_NAME_ECHO = 128;

/** The one error for a missing or hidden tool: identical bytes either way. */
function unknownTool(name: string): WireError {
  const shown = name.length > MAX_NAME_ECHO ? `${name.slice(0, MAX_NAME_ECHO)}…` : name;
  return new WireError(ErrorCode.InvalidParams, `Unknown tool: ${shown}`);
}

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
    throw new WireError(ErrorCode.InvalidParams, 'Invalid params: name must be a non-empty string');
  }
  const args = params.arguments ?? {};
  if (!isJsonObject(args))
    throw new WireError(ErrorCode.InvalidParams, 'Invalid params: arguments must be an object');
  return { name, args };
}

export async function callTool(
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const { name, args } = readCallParams(params);
  const filters = env.filters(context.peer);
  const tool = visibleTool(env, filters, name, context);
  if (!tool) {
    const known = env.stepUp ? env.catalogue.findTool(name) : undefined;
    const missing =
      known !== undefined && toolExistsFor(known, context) ? filters.missingScopes?.(name) : undefined;
    throw missing === undefined ? unknownTool(name) : insufficientScope(missing);
  }
  return finishResult(context, await runTool(env, filters, tool, args, params, context));
}

async function runTool(
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
      throw new WireError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
        requiredCapabilities: lacking,
      });
    }
    return errorResult(
      `Tool ${tool.name} needs client capabilities this client did not declare: ${Object.keys(lacking).join(', ')}`,
    );
  }
  const refusal = filters.callRefusal(tool.name, args);
  if (refusal !== undefined) return errorResult(refusal);
  const target = { method: 'tools/call', name: tool.name, arguments: args } as const;
  let input: Record<string, unknown>;
  try {
    const pending = tool.parse(args);
    const parsed = pending instanceof Promise ? await pending : pending;
    if (!parsed.ok) return errorResult(env.invalidArgumentsMessage(parsed.issues, tool.name));
    input = parsed.value as Record<string, unknown>;
  } catch (error) {
    return failureResult(env, tool, error);
  }
  if (plan?.kind === 'task' && env.tasks !== undefined) {
    return callAsTask(env, env.tasks, context, params, target, plan, {
      run: (handlerContext) => invoke(env, tool, input, handlerContext),
      fail: (error) => failureResult(env, tool, error),
      missingCapability: (message) =>
        errorResult(`Tool ${tool.name} needs a client capability this client did not declare: ${message}`),
    });
  }
  try {
    const outcome = await runClientInputRound(context, params, target, env.codec, (handlerContext) =>
      invoke(env, tool, input, handlerContext),
    );
    if (outcome.kind === 'complete') return outcome.value;
    if (outcome.kind === 'input_required') return outcome.result;
    return errorResult(
      `Tool ${tool.name} needs a client capability this client did not declare: ${outcome.error.message}`,
    );
  } catch (error) {
    return failureResult(env, tool, error);
  }
}

/** The handler and result shaping, inside the `useToolCall` hooks when there are any. */
function invoke(
  env: DispatchEnv,
  tool: RegisteredTool,
  input: Record<string, unknown>,
  context: HandlerContext,
): Promise<JsonObject> {
  const run = async (args: Record<string, unknown>) =>
    toToolResult(await tool.handler(args, context), context.era, tool.name, tool.parseOutput);
  if (env.toolHooks.length === 0) return run(input);
  return runToolHooks(env.toolHooks, env.logger, tool.name, input, context, run);
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
