/** The embedder's seam: the framework owns the protocol, the Handler owns the domain. */
import type { JsonObject, JsonRpcNotification, JsonRpcRequest, RequestId } from '@agentd/rpc-frame';

/** The trust domain a peer arrived in; the embedder decides what each may do. */
export type PeerOrigin = 'management' | 'stdio';

export type Era = 'legacy' | 'modern';

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export interface Peer {
  readonly origin: PeerOrigin;
  /** Unique per connection (socket, stdio process, HTTP session or stateless HTTP request). */
  readonly connectionId: string;
  /** 'unix' | 'vsock' | 'stdio' | 'http' | …: informational, never a trust decision. */
  readonly transport: string;
  /** Transport facts: vsock `{cid, port}`, HTTP `{principal, remoteAddress}`, … */
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** What the server capabilities object may contain (MCP `ServerCapabilities`). */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: JsonObject;
  logging?: JsonObject;
  experimental?: JsonObject;
  extensions?: JsonObject;
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
}

/** Per-request facts handed to the Handler; created once per request, kept thin. */
export interface RequestContext {
  readonly peer: Peer;
  readonly era: Era;
  /** The negotiated (legacy) or declared (modern) protocol version. */
  readonly protocolVersion: string;
  /** Legacy: from `initialize`; modern: from this request's `_meta`. */
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  /** Aborted on `notifications/cancelled`, disconnect, HTTP stream close or shutdown. */
  readonly signal: AbortSignal;
  readonly progressToken: string | number | undefined;
  /** Lowest level the client wants logs at; undefined means send no `notifications/message`. */
  readonly logLevel: LoggingLevel | undefined;
  /** Sends a request-scoped notification (progress, message) on this request's stream. */
  notify(message: JsonRpcNotification): void;
  /**
   * Legacy era only: sends a server-to-client request (`sampling/createMessage`,
   * `elicitation/create`, `roots/list`) and resolves to the client's result. Undefined in the
   * modern era, where client input travels as `input_required` results instead.
   */
  readonly sendRequest: ((method: string, params: JsonObject) => Promise<JsonObject>) | undefined;
}

export interface Handler {
  /** The domain capabilities actually wired; the server adds what it delivers itself. */
  capabilities(): ServerCapabilities;
  /**
   * Answers one domain request. Resolves to the JSON-RPC `result` object; throws a
   * `WireError` for protocol errors (-32601 for methods it does not serve).
   */
  handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject>;
  /** Gate for `resources/subscribe` and listen `resourceSubscriptions`; throw a WireError to refuse with a reason. */
  canSubscribe?(uri: string, peer: Peer): boolean | Promise<boolean>;
  onConnect?(peer: Peer): void;
  onDisconnect?(peer: Peer): void;
}
