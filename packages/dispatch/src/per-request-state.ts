/** The per-request bag middleware fills and handlers read (`ctx.state`, `HandlerContext.state`). */
import type { RequestContext } from '@agentd/server';

/** Keyed by whatever the application chooses; one Map per request, gone with the request. */
export type RequestState = Map<string, unknown>;

// Keyed by the core's RequestContext (one per request): no field on it, nothing allocated until read.
const states = new WeakMap<RequestContext, RequestState>();

export function stateOf(request: RequestContext): RequestState {
  let state = states.get(request);
  if (state === undefined) {
    state = new Map();
    states.set(request, state);
  }
  return state;
}
