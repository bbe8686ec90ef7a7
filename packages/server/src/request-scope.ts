/** The RequestContext of one domain request; its AbortController is only created when someone looks. */
import type { Era, LoggingLevel } from '@agentd/lifecycle';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, RequestId } from '@agentd/rpc-frame';
import type { Peer, RequestContext } from './handler.js';

export interface RequestFacts {
  readonly peer: Peer;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  readonly progressToken: string | number | undefined;
  readonly logLevel: LoggingLevel | undefined;
}

export interface ScopeIo {
  /** Writes a request-scoped message; `force` is for the cancel of a client request after abort. */
  send(message: JsonRpcMessage, force: boolean): boolean;
  /** Legacy server-to-client request (undefined in the modern era). */
  ask?(method: string, params: JsonObject, scope: RequestScope): Promise<JsonObject>;
}

export class RequestScope implements RequestContext {
  readonly peer: Peer;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  readonly progressToken: string | number | undefined;
  readonly logLevel: LoggingLevel | undefined;
  private controller: AbortController | undefined;
  private abortReason: string | undefined;
  private asker: ((method: string, params: JsonObject) => Promise<JsonObject>) | undefined;

  constructor(
    facts: RequestFacts,
    private readonly io: ScopeIo,
  ) {
    this.peer = facts.peer;
    this.era = facts.era;
    this.protocolVersion = facts.protocolVersion;
    this.clientCapabilities = facts.clientCapabilities;
    this.clientInfo = facts.clientInfo;
    this.requestId = facts.requestId;
    this.progressToken = facts.progressToken;
    this.logLevel = facts.logLevel;
  }

  /** Created on first use: most requests finish without anyone listening for an abort. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  get sendRequest(): RequestContext['sendRequest'] {
    const ask = this.io.ask;
    if (ask === undefined) return undefined;
    this.asker ??= (method, params) => ask.call(this.io, method, params, this);
    return this.asker;
  }

  abort(reason: string): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  notify(message: JsonRpcNotification): void {
    if (this.abortReason === undefined) this.io.send(message, false);
  }

  /** For the core: writes unless aborted (or forced). */
  send(message: JsonRpcMessage, force = false): boolean {
    if (this.abortReason !== undefined && !force) return false;
    return this.io.send(message, force);
  }
}
