/**
 * The engine's shapes: ServerCore and the CoreConnection every transport drives (public), and the
 * CoreHost a connection sees of its core (internal). Both server-core.ts and core-connection.ts
 * import from here, never from each other's types.
 */
import type { LifecycleOptions, RequestClass, ServerCapabilities } from '@agentd/lifecycle';
import type {
  Classified,
  JsonObject,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '@agentd/rpc-frame';
import type { PushWriter, SubscriptionRegistry } from '@agentd/subscriptions';
import type { Handler, Implementation, Peer } from './handler.js';
import type { InputBudget } from './input-budget.js';
import type { Logger } from './logger.js';
import type { TraceCarrier } from './telemetry.js';
import type { WireProfile } from './wire-profile.js';

export interface ServerCoreOptions {
  handler: Handler;
  serverInfo: Implementation;
  /** Shared with the embedder so it can push; default: a new registry with canonical uris. */
  registry?: SubscriptionRegistry;
  lifecycle?: LifecycleOptions;
  /** Domain requests one connection runs at once; more wait their turn. Default 32. */
  maxInFlightPerConnection?: number;
  /**
   * Resource subscriptions one connection may hold (legacy subscribe), and uris one listen stream
   * may name. Past it: -32602 with `data.limit`. Default 4 096.
   */
  maxSubscriptionsPerConnection?: number;
  /** How long a legacy server-to-client request waits for the client. Default 300 000 ms. */
  clientRequestTimeoutMs?: number;
  /** Diagnostics (internal errors, dropped peers). Default: JSON lines on stderr, level info. */
  logger?: Logger;
  /**
   * Bytes of unfinished input lines all connections together may hold (each alone may hold up to
   * its `maxFrameBytes`). The connection whose input would pass it is answered -32600 and closed.
   * Default 64 MiB.
   */
  maxBufferedInputBytes?: number;
  /**
   * A wire contract that departs from the specification (see `WireProfile`). Transports then carry
   * every message to the core, and HTTP answers each POST `200 application/json`.
   */
  profile?: WireProfile;
}

export interface HandleOptions {
  /**
   * Where request-scoped messages go: progress and log notifications and, in the legacy era,
   * server-to-client requests (`sampling/createMessage`, `elicitation/create`, `roots/list`).
   * HTTP passes the POST's SSE stream. Default: the connection writer. (Method syntax, so a
   * callback typed for notifications only is still accepted.)
   */
  notify?(message: JsonRpcNotification | JsonRpcRequest): void;
  /** Aborts the request (HTTP: the client closed the stream); no response is produced afterwards. */
  signal?: AbortSignal;
  /**
   * Ends the request's connection early while the request goes on (legacy HTTP with an event
   * store: the client resumes with GET + `Last-Event-ID`). Offered to the handler as
   * `RequestContext.closeStream`; absent where nothing could resume.
   */
  closeStream?(): void;
  /**
   * W3C trace context from the transport's envelope (HTTP `traceparent` / `tracestate` /
   * `baggage` headers): the request span's parent when `params._meta` carries none.
   */
  traceCarrier?: TraceCarrier | undefined;
  /**
   * The request's classification when the transport already made it (HTTP classifies every POST
   * to route it): the core then does not check `_meta` again. It must come from `classifyRequest`
   * with this core's lifecycle options.
   */
  classified?: RequestClass | undefined;
}

/** The legacy handshake state of a connection, after `initialize`. */
export interface LegacySession {
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  /** True once `notifications/initialized` arrived. */
  readonly initialized: boolean;
}

export interface CoreConnection {
  readonly peer: Peer;
  readonly writer: PushWriter;
  /** Set by a legacy `initialize`; modern requests never read it. */
  readonly session: LegacySession | undefined;
  /** Domain requests running or waiting for a slot (listen streams not counted). */
  readonly pending: number;
  /** Open `subscriptions/listen` streams. */
  readonly listenCount: number;
  readonly closed: boolean;
  /**
   * Whether `handle` may run this frame as a request, so a transport bounding in-flight work makes
   * it wait for a slot: a request; under a wire profile, which may run id-less messages, those too.
   */
  runsAsRequest(frame: Classified): boolean;
  /**
   * Processes one decoded frame. Requests resolve to their response (undefined when cancelled);
   * notifications and client responses resolve undefined. Never rejects.
   */
  handle(frame: Classified, options?: HandleOptions): Promise<JsonRpcResponse | undefined>;
  /** Resolves when no domain request is running or waiting. */
  idle(): Promise<void>;
  /**
   * Aborts in-flight requests, removes the connection's subscriptions, then calls
   * `handler.onDisconnect`. `graceful` (the peer can still read) resolves each listen stream with
   * its final result and answers each aborted request -32000 "Connection is closing"; otherwise
   * they resolve undefined.
   */
  close(options?: { graceful?: boolean }): void;
}

export interface ServerCore {
  readonly registry: SubscriptionRegistry;
  readonly serverInfo: Implementation;
  readonly logger: Logger;
  readonly lifecycleOptions: LifecycleOptions;
  /** The wire profile the core was created with, if any. */
  readonly profile: WireProfile | undefined;
  /** The configured protocol versions, newest first (what `server/discover` and -32022 errors list). */
  supportedVersions(): readonly string[];
  /** Derived from the handler and what the core delivers (`subscribe` needs `handler.canSubscribe`). */
  capabilities(): ServerCapabilities;
  /** One logical connection: a socket, stdio, a legacy HTTP session, or one stateless HTTP POST. */
  openConnection(peer: Peer, writer: PushWriter): CoreConnection;
  /**
   * A connection id (`<transport>-<core>-<n>`) no connection of this core has had or has: the core
   * owns connection identity, so every endpoint, listener and transport that shares it asks here.
   */
  mintConnectionId(transport: string): string;
  readonly maxInFlightPerConnection: number;
  /** Shared by the transports' connections: bytes of unfinished input lines held server-wide. */
  readonly inputBudget: InputBudget;
  /** Open connections. */
  readonly connectionCount: number;
  notifyResourceUpdated(uri: string, options?: { keep?: boolean }): number;
  /**
   * A task status notification (`notifications/tasks` or 2025-11-25 `notifications/tasks/status`):
   * to listen streams watching the task and to the legacy session that created it, nobody else.
   */
  notifyTaskStatus(taskId: string, message: JsonRpcNotification, creatorConnectionId?: string): number;
  /** To legacy sessions and listen streams that asked; a no-op unless the capability declares listChanged. */
  notifyListChanged(kind: 'tools' | 'prompts' | 'resources'): number;
  /** Ends listen streams with their final result, aborts in-flight requests (answered -32000), refuses new ones. */
  close(): Promise<void>;
  readonly closing: boolean;
}

/** What a connection needs from its core (internal: server-core implements it, core-connection uses it). */
export interface CoreHost {
  readonly handler: Handler;
  readonly serverInfo: Implementation;
  readonly registry: SubscriptionRegistry;
  readonly lifecycleOptions: LifecycleOptions;
  readonly logger: Logger;
  readonly maxInFlight: number;
  readonly clientRequestTimeoutMs: number;
  readonly maxSubscriptions: number;
  readonly closing: boolean;
  readonly profile: WireProfile | undefined;
  capabilities(): ServerCapabilities;
  forget(connection: CoreConnection): void;
}
