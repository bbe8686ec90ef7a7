/**
 * Tool-call hooks: `(call, next)` functions around every tool handler, in registration order,
 * seeing the validated arguments and the CallToolResult. They run for every tools/call that
 * reaches a handler (classic operations and Code Mode's `search`/`execute` included; the
 * operations one `execute` calls inside the sandbox are not tool calls), once per MRTR round.
 */
import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { HandlerContext } from './handler-context.js';
import { runOnion } from './onion.js';
import type { RequestState } from './per-request-state.js';

/** The request's one `RequestContext` (through the handler's context) with the tool call in hand. */
export interface ToolCallContext extends RequestContext {
  /** The tool's name (`{kind}_{id}` for a classic operation). */
  readonly name: string;
  /** The arguments after schema validation (a Standard Schema's output); assign before `next()` to change them. */
  arguments: Record<string, unknown>;
  /** The request's bag (see `MiddlewareContext.state`). */
  readonly state: RequestState;
  /** The context the handler receives. */
  readonly context: HandlerContext;
}

/**
 * Resolves to the CallToolResult: `next()`'s, changed or not, or its own (a short-circuit). When
 * the handler throws (a failure, or a request for client input), `next()` rejects with that
 * throw: rethrow it and it is answered exactly as without hooks (an `isError` result, an
 * `input_required` round). A hook's own `WireError` answers with that JSON-RPC error; any other
 * throw of its own is logged and answered -32603 `Internal error`.
 */
export type ToolCallHook = (
  call: ToolCallContext,
  next: () => Promise<JsonObject>,
) => JsonObject | Promise<JsonObject>;

/** Runs the hooks around `invoke` (the handler and result shaping); what `invoke` throws passes through unchanged. */
export async function runToolHooks(
  hooks: readonly ToolCallHook[],
  logger: Logger,
  name: string,
  args: Record<string, unknown>,
  context: HandlerContext,
  invoke: (args: Record<string, unknown>) => Promise<JsonObject>,
): Promise<JsonObject> {
  // The handler's context with the call's name and arguments in front (its facts, signal and
  // bag are the handler context's own, read through the prototype).
  const call = Object.create(context, {
    name: { value: name, enumerable: true },
    arguments: { value: args, enumerable: true, writable: true },
    context: { value: context, enumerable: true },
  }) as ToolCallContext;
  return runOnion(hooks, call, () => invoke(call.arguments), logger, {
    layer: 'tool-call hook',
    fields: { tool: name },
  });
}
