/**
 * What the handler and middleware contexts share: the core's request, and the facts most code
 * never looks at read through from it (a getter each, so nothing is copied until it is read).
 */
import type { LogLevel } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import { type RequestState, stateOf } from './per-request-state.js';

export class RequestView {
  readonly request: RequestContext;

  constructor(request: RequestContext) {
    this.request = request;
  }

  get progressToken(): string | number | undefined {
    return this.request.progressToken;
  }

  get logLevel(): LogLevel | undefined {
    return this.request.logLevel;
  }

  get sendRequest(): RequestContext['sendRequest'] {
    return this.request.sendRequest;
  }

  get closeStream(): RequestContext['closeStream'] {
    return this.request.closeStream;
  }

  // The bag is only made when someone reads it.
  get state(): RequestState {
    return stateOf(this.request);
  }
}
