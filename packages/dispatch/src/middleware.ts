/**
 * Request middleware: `(ctx, next)` functions around every request the Dispatcher serves, in
 * registration order (the first registered is outermost). Lifecycle methods the server core
 * answers itself (initialize, ping, server/discover, logging/setLevel, subscriptions) and
 * notifications never reach the Dispatcher, so they never pass through middleware.
 */
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcRequest,
  type Logger,
  type RequestId,
} from '@agentd/rpc-frame';
import type { Era, Peer, PeerAuth, RequestContext } from '@agentd/server';
import { runOnion } from './onion.js';
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
  // What the dispatcher itself threw passes through unchanged (the core answers and logs it).
  return runOnion(
    middleware,
    ctx,
    () => inner(ctx.params === initial ? request : { ...request, params: ctx.params }, context),
    logger,
    { layer: 'middleware', fields: { method: request.method } },
  );
}
