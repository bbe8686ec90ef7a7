/**
 * Request middleware: `(ctx, next)` functions around every request the Dispatcher serves, in
 * registration order (the first registered is outermost). Lifecycle methods the server core
 * answers itself (initialize, ping, server/discover, logging/setLevel, subscriptions) and
 * notifications never reach the Dispatcher, so they never pass through middleware.
 */
import type { JsonObject, JsonRpcNotification, JsonRpcRequest, Logger, RequestId } from '@agentd/rpc-frame';
import type { Era, Peer, PeerAuth, RequestContext } from '@agentd/server';
import { runOnion } from './onion.js';
import type { RequestState } from './per-request-state.js';
import { RequestView } from './request-view.js';

/** The request's one `RequestContext` (peer, era, client, signal, …) with the method and params to serve. */
export interface MiddlewareContext extends RequestContext {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The request's params (`{}` when absent); assign a new object before `next()` to rewrite them. */
  params: JsonObject;
  /** `peer.auth`: set when the caller authenticated (bearer token or OAuth access token). */
  readonly auth: PeerAuth | undefined;
  /** This request's bag: what middleware puts here, handlers read as `context.state`. */
  readonly state: RequestState;
  /** The server core's context of this request (the facts above come from it). */
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
  // Absent params read as `{}`; the request goes on untouched unless a middleware assigns new ones.
  // (Params that are not an object never reach a handler: rpc-frame's classify refuses them.)
  const initial: JsonObject = request.params ?? {};
  const ctx = new MiddlewareCall(request.method, initial, context);
  // What the dispatcher itself threw passes through unchanged (the core answers and logs it).
  return runOnion(
    middleware,
    ctx,
    () => inner(ctx.params === initial ? request : { ...request, params: ctx.params }, context),
    logger,
    { layer: 'middleware', fields: { method: request.method } },
  );
}

/**
 * One request's middleware context: a class (one allocation, one shape), reading the core's facts
 * through getters so the context stays what the core says (the signal is created on first read).
 */
class MiddlewareCall extends RequestView implements MiddlewareContext {
  readonly method: string;
  params: JsonObject;

  constructor(method: string, params: JsonObject, request: RequestContext) {
    super(request);
    this.method = method;
    this.params = params;
  }

  get peer(): Peer {
    return this.request.peer;
  }
  get auth(): PeerAuth | undefined {
    return this.request.peer.auth;
  }
  get era(): Era {
    return this.request.era;
  }
  get protocolVersion(): string {
    return this.request.protocolVersion;
  }
  get clientCapabilities(): JsonObject {
    return this.request.clientCapabilities;
  }
  get clientInfo(): JsonObject | undefined {
    return this.request.clientInfo;
  }
  get requestId(): RequestId {
    return this.request.requestId;
  }
  get signal(): AbortSignal {
    return this.request.signal;
  }
  notify(message: JsonRpcNotification): void {
    this.request.notify(message);
  }
}
