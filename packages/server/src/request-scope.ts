/** The RequestContext of one domain request; its AbortController is only created when someone looks. */
import type { Era } from '@agentd/lifecycle';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, LogLevel, RequestId } from '@agentd/rpc-frame';
import type { Peer, RequestContext } from './handler.js';

interface RequestFacts {
  readonly peer: Peer;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  readonly progressToken: string | number | undefined;
  readonly logLevel: LogLevel | undefined;
}

export interface ScopeIo {
  /** Writes a request-scoped message; `force` is for the cancel of a client request after abort. */
  send(message: JsonRpcMessage, force: boolean): boolean;
  /** Legacy server-to-client request (absent in the modern era). */
  ask?(method: string, params: JsonObject, scope: RequestScope): Promise<JsonObject>;
  /** Ends the request's resumable connection early (legacy HTTP with an event store). */
  closeStream?(): void;
}

/**
 * Internal state and the handler-facing context in one object. `signal` is an own enumerable
 * accessor (one shared getter, so every instance keeps one fast shape): `{...context}` and
 * destructuring see a real signal, and no AbortController exists until it is read.
 */
export class RequestScope implements RequestContext {
  readonly peer: Peer;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  readonly progressToken: string | number | undefined;
  readonly logLevel: LogLevel | undefined;
  declare readonly signal: AbortSignal;
  readonly sendRequest: RequestContext['sendRequest'];
  readonly closeStream: RequestContext['closeStream'];
  readonly notify: (message: JsonRpcNotification) => void;
  /** @internal */ controller: AbortController | undefined;
  /** @internal */ abortReason: string | undefined;
  /** @internal */ readonly io: ScopeIo;

  constructor(facts: RequestFacts, io: ScopeIo) {
    this.peer = facts.peer;
    this.era = facts.era;
    this.protocolVersion = facts.protocolVersion;
    this.clientCapabilities = facts.clientCapabilities;
    this.clientInfo = facts.clientInfo;
    this.requestId = facts.requestId;
    this.progressToken = facts.progressToken;
    this.logLevel = facts.logLevel;
    Object.defineProperty(this, 'signal', SIGNAL);
    const ask = io.ask;
    // Only a legacy scope can ask the client (a modern one has no `ask`): no closure otherwise.
    this.sendRequest = ask === undefined ? undefined : (method, params) => ask.call(io, method, params, this);
    this.closeStream = io.closeStream;
    this.notify = (message) => {
      this.send(message);
    };
    this.controller = undefined;
    this.abortReason = undefined;
    this.io = io;
  }

  /** What the handler sees (the scope itself). */
  get context(): RequestContext {
    return this;
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  abort(reason: string): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  /** Writes unless aborted (or forced). */
  send(message: JsonRpcMessage, force = false): boolean {
    if (this.abortReason !== undefined && !force) return false;
    return this.io.send(message, force);
  }
}

const SIGNAL: PropertyDescriptor = {
  enumerable: true,
  configurable: false,
  get(this: RequestScope): AbortSignal {
    // Created on first use: most requests finish without anyone listening for an abort.
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  },
};

export function createRequestScope(facts: RequestFacts, io: ScopeIo): RequestScope {
  return new RequestScope(facts, io);
}
