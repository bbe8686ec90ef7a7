/**
 * Tool-call hooks: `(call, next)` functions around every tool handler, in registration order,
 * seeing the validated arguments and the CallToolResult. They run for every tools/call that
 * reaches a handler (classic operations and Code Mode's `search`/`execute` included; the
 * operations one `execute` calls inside the sandbox are not tool calls), once per MRTR round.
 */
import {
  ErrorCode,
  errorFields,
  isJsonObject,
  type JsonObject,
  type Logger,
  WireError,
} from '@agentd/rpc-frame';
import type { Era, Peer } from '@agentd/server';
import type { HandlerContext } from './handler-context.js';
import type { RequestState } from './per-request-state.js';

export interface ToolCallContext {
  /** The tool's name (`{kind}_{id}` for a classic operation). */
  readonly name: string;
  /** The arguments after schema validation (a Standard Schema's output); assign before `next()` to change them. */
  arguments: Record<string, unknown>;
  readonly peer: Peer;
  readonly era: Era;
  readonly signal: AbortSignal;
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

const INTERNAL = 'Internal error';

/** Runs the hooks around `invoke` (the handler and result shaping); what `invoke` throws passes through unchanged. */
export async function runToolHooks(
  hooks: readonly ToolCallHook[],
  logger: Logger,
  name: string,
  args: Record<string, unknown>,
  context: HandlerContext,
  invoke: (args: Record<string, unknown>) => Promise<JsonObject>,
): Promise<JsonObject> {
  const call: ToolCallContext = {
    name,
    arguments: args,
    peer: context.peer,
    era: context.era,
    get signal() {
      return context.signal;
    },
    get state() {
      return context.state;
    },
    context,
  };
  let innerFailure: { error: unknown } | undefined;
  const step = (index: number): Promise<JsonObject> => {
    const hook = hooks[index];
    if (hook === undefined) {
      return invoke(call.arguments).catch((error: unknown) => {
        innerFailure = { error };
        throw error;
      });
    }
    let called = false;
    const next = (): Promise<JsonObject> => {
      if (called) return Promise.reject(new WireError(ErrorCode.InternalError, INTERNAL));
      called = true;
      return step(index + 1);
    };
    const checked = (result: JsonObject): JsonObject => {
      if (isJsonObject(result)) return result;
      logger.error('tool-call hook returned a non-object result', { tool: name, index });
      throw new WireError(ErrorCode.InternalError, INTERNAL);
    };
    // Called in place (no extra microtask per layer); a synchronous throw becomes a rejection.
    try {
      const result = hook(call, next);
      return result instanceof Promise ? result.then(checked) : Promise.resolve(checked(result));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  try {
    return await step(0);
  } catch (error) {
    if (error instanceof WireError) throw error;
    if (innerFailure !== undefined && Object.is(innerFailure.error, error)) throw error;
    logger.error('tool-call hook failed', { tool: name, ...errorFields(error) });
    throw new WireError(ErrorCode.InternalError, INTERNAL);
  }
}
