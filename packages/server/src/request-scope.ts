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
  /** Legacy server-to-client request (absent in the modern era). */
  ask?(method: string, params: JsonObject, scope: RequestScope): Promise<JsonObject>;
}

export interface RequestScope {
  /** What the handler sees. Its getters are own properties, so `{...context}` keeps them. */
  readonly context: RequestContext;
  readonly aborted: boolean;
  abort(reason: string): void;
  /** Writes unless aborted (or forced). */
  send(message: JsonRpcMessage, force?: boolean): boolean;
}

export function createRequestScope(facts: RequestFacts, io: ScopeIo): RequestScope {
  let controller: AbortController | undefined;
  let abortReason: string | undefined;
  let asker: ((method: string, params: JsonObject) => Promise<JsonObject>) | undefined;
  const send = (message: JsonRpcMessage, force = false): boolean => {
    if (abortReason !== undefined && !force) return false;
    return io.send(message, force);
  };
  const scope: RequestScope = {
    context: {
      ...facts,
      // Created on first use: most requests finish without anyone listening for an abort.
      get signal(): AbortSignal {
        if (controller === undefined) {
          controller = new AbortController();
          if (abortReason !== undefined) controller.abort(abortReason);
        }
        return controller.signal;
      },
      notify(message: JsonRpcNotification): void {
        send(message);
      },
      get sendRequest(): RequestContext['sendRequest'] {
        const ask = io.ask;
        if (ask === undefined) return undefined;
        asker ??= (method, params) => ask.call(io, method, params, scope);
        return asker;
      },
    },
    get aborted(): boolean {
      return abortReason !== undefined;
    },
    abort(reason: string): void {
      if (abortReason !== undefined) return;
      abortReason = reason;
      controller?.abort(reason);
    },
    send,
  };
  return scope;
}
