/** The embedder's seam: the framework owns the protocol, the Handler owns the domain. */
import type { Era, Implementation, ServerCapabilities } from '@agentd/lifecycle';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest, LogLevel, RequestId } from '@agentd/rpc-frame';

// One definition of the protocol shapes (in lifecycle), re-exported here for handler authors.
export type { Era, Implementation, ServerCapabilities };

/**
 * The trust domain a peer arrived in; the embedder decides what each may do. `management`: an
 * access-controlled channel (0600 unix socket, vsock, authenticated HTTP); `stdio`: the process
 * that launched this server; `anonymous`: HTTP without credentials, reachable by anyone who can
 * reach the port, so it must never be treated as management.
 */
export type PeerOrigin = 'management' | 'stdio' | 'anonymous';

/** Who a peer proved to be (HTTP bearer token or OAuth access token). */
export interface PeerAuth {
  /** The authenticated principal: a static token's name, or the OAuth token's subject. */
  readonly principal: string;
  /** Granted scopes (OAuth `scope`); empty for static tokens. */
  readonly scopes: readonly string[];
  /** `token` (a configured static bearer token) or `oauth` (a verified access token). */
  readonly scheme: 'token' | 'oauth';
  /** OAuth client id (`client_id`/`azp` claim), when known. */
  readonly clientId?: string;
  /** Expiry in seconds since the epoch (`exp`), when known. */
  readonly expiresAt?: number;
  /** Other verified facts (claims) the verifier chose to keep. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface Peer {
  readonly origin: PeerOrigin;
  /** Set when the peer authenticated; absent for anonymous, stdio, unix and vsock peers. */
  readonly auth?: PeerAuth;
  /** Unique per connection (socket, stdio process, HTTP session or stateless HTTP request). */
  readonly connectionId: string;
  /** 'unix' | 'vsock' | 'stdio' | 'http' | …: informational, never a trust decision. */
  readonly transport: string;
  /** Transport facts: vsock `{cid, port}`, HTTP `{principal, remoteAddress}`, … */
  readonly attributes: Readonly<Record<string, unknown>>;
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
  readonly logLevel: LogLevel | undefined;
  /** Sends a request-scoped notification (progress, message) on this request's stream. */
  notify(message: JsonRpcNotification): void;
  /**
   * Legacy era only: sends a server-to-client request (`sampling/createMessage`,
   * `elicitation/create`, `roots/list`) and resolves to the client's result. Undefined in the
   * modern era, where client input travels as `input_required` results instead.
   */
  readonly sendRequest: ((method: string, params: JsonObject) => Promise<JsonObject>) | undefined;
  /**
   * Legacy HTTP with an event store only (SEP-1699 polling): closes this request's SSE
   * connection now while the request goes on; the client reconnects with GET + `Last-Event-ID`
   * and receives what followed, the response included. Undefined where nothing could resume
   * (other transports, the 2026-07-28 era, no event store).
   */
  readonly closeStream?: (() => void) | undefined;
}

export interface Handler {
  /** The domain capabilities actually wired; the server adds what it delivers itself. */
  capabilities(): ServerCapabilities;
  /**
   * Answers one domain request. Resolves to the JSON-RPC `result` object; throws a
   * `WireError` for protocol errors (-32601 for methods it does not serve).
   */
  handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject>;
  /**
   * Gate for `resources/subscribe` and listen `resourceSubscriptions`; throw a WireError to refuse
   * with a reason. Receives the canonical uri (`registry.canonicalize`). Without a gate the server
   * offers no subscriptions (`resources.subscribe` is dropped from the capabilities).
   */
  canSubscribe?(uri: string, peer: Peer): boolean | Promise<boolean>;
  /** Tasks extension: whether `peer` may watch the task on a listen stream (`notifications.taskIds`). */
  canWatchTask?(taskId: string, peer: Peer): boolean | Promise<boolean>;
  onConnect?(peer: Peer): void;
  onDisconnect?(peer: Peer): void;
}
