/**
 * Request middleware: `(ctx, next)` functions around every request the Dispatcher serves, in
 * registration order (the first registered is outermost). Lifecycle methods the server core
 * answers itself (initialize, ping, server/discover, logging/setLevel, subscriptions) and
 * notifications never reach the Dispatcher, so they never pass through middleware.
 */
import {
  ErrorCode,
  errorFields,
  isJsonObject,
  type JsonObject,
  type JsonRpcRequest,
  type Logger,
  type RequestId,
  WireError,
} from '@agentd/rpc-frame';
import type { Era, Peer, PeerAuth, RequestContext } from '@agentd/server';
import { type RequestState, stateOf } from './per-request-state.js';

export interface MiddlewareContext {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The request's params (`{}` when absent); assign a new object before `next()` to rewrite them. */
  params: JsonObject;
  readonly peer: Peer;
  /** `peer.auth`: set when the caller authenticated (bearer token or OAuth access token). */
  readonly auth: PeerAuth | undefined;
  readonly era: Era;
  readonly requestId: RequestId;
  /** Aborted on cancel, disconnect, HTTP stream close or shutdown. */
  readonly signal: AbortSignal;
  /** This request's bag: what middleware puts here, handlers read as `context.state`. */
  readonly state: RequestState;
  /** The raw per-request facts from the server core. */
  readonly request: RequestContext;
}

/**
 * Resolves to the request's result: `next()`'s, changed or not, or its own (a short-circuit).
 * Throw a `WireError` to answer with that JSON-RPC error; any other throw is logged and
 * answered -32603 `Internal error`.
 */
export type Middleware = (
  ctx: MiddlewareContext,
  next: () => Promise<JsonObject>,
) => JsonObject | Promise<JsonObject>;

type Inner = (request: JsonRpcRequest, context: RequestContext) => Promise<JsonObject>;

const INTERNAL = 'Internal error';

/** Runs `middleware` around `inner` for one request. */
export async function runMiddleware(
  middleware: readonly Middleware[],
  logger: Logger,
  request: JsonRpcRequest,
  context: RequestContext,
  inner: Inner,
): Promise<JsonObject> {
  const raw = request.params;
  // Not an object (absent, or an array the dispatcher refuses): middleware sees `{}`, and the
  // request goes on untouched unless a middleware assigns new params.
  const initial: JsonObject = isJsonObject(raw) ? raw : {};
  const ctx: MiddlewareContext = {
    method: request.method,
    params: initial,
    peer: context.peer,
    auth: context.peer.auth,
    era: context.era,
    requestId: context.requestId,
    get signal() {
      return context.signal;
    },
    get state() {
      return stateOf(context);
    },
    request: context,
  };
  // What the dispatcher itself threw passes through unchanged (the core answers and logs it);
  // only a middleware's own failure is turned into -32603 here.
  let innerFailure: { error: unknown } | undefined;
  const callInner = async (): Promise<JsonObject> => {
    try {
      return await inner(ctx.params === initial ? request : { ...request, params: ctx.params }, context);
    } catch (error) {
      innerFailure = { error };
      throw error;
    }
  };
  const step = (index: number): Promise<JsonObject> => {
    const current = middleware[index];
    if (current === undefined) return callInner();
    let called = false;
    const next = (): Promise<JsonObject> => {
      if (called) return Promise.reject(new WireError(ErrorCode.InternalError, INTERNAL));
      called = true;
      return step(index + 1);
    };
    const checked = (result: JsonObject): JsonObject => {
      if (isJsonObject(result)) return result;
      logger.error('middleware returned a non-object result', { method: request.method, index });
      throw new WireError(ErrorCode.InternalError, INTERNAL);
    };
    // Called in place (no extra microtask per layer); a synchronous throw becomes a rejection.
    try {
      const result = current(ctx, next);
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
    logger.error('middleware failed', { method: request.method, ...errorFields(error) });
    throw new WireError(ErrorCode.InternalError, INTERNAL);
  }
}
