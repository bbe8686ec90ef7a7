/** The RequestContext of one domain request; its AbortController is only created when someone looks. */
import type { Era } from '@agentd/lifecycle';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, LogLevel, RequestId } from '@agentd/rpc-frame';
import type { Peer, RequestContext } from './handler.js';

/**
 * Who the client is for this request: a modern request's checked `_meta` (lifecycle's `ModernMeta`)
 * or the legacy session, passed as they are (no copy per request).
 */
interface ClientFacts {
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo?: JsonObject | undefined;
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
 * The one RequestContext of a request: the handler-facing facts and the core's internal state in
 * one object (dispatch's handler, middleware and tool-hook contexts extend what it exposes). `signal` is an own enumerable
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

  constructor(
    peer: Peer,
    requestId: RequestId,
    era: Era,
    client: ClientFacts,
    progressToken: string | number | undefined,
    logLevel: LogLevel | undefined,
    io: ScopeIo,
  ) {
    this.peer = peer;
    this.era = era;
    this.protocolVersion = client.protocolVersion;
    this.clientCapabilities = client.clientCapabilities;
    this.clientInfo = client.clientInfo;
    this.requestId = requestId;
    this.progressToken = progressToken;
    this.logLevel = logLevel;
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
