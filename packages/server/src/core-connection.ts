/** One logical connection of the engine: request routing, legacy session, cancellation, listen streams. */
import {
  classifyRequest,
  type Era,
  LEGACY_VERSIONS,
  lifecycleResponse,
  type ModernMeta,
  modernResult,
  type RequestClass,
  refuse,
  resolveLifecycle,
  type ServerCapabilities,
} from '@agentd/lifecycle';
import {
  type Classified,
  errorResponse,
  invalidMessageResponse,
  isJsonObject,
  isRequestId,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type LogLevel,
  type RequestId,
  successResponse,
  toWireError,
  type WireError,
} from '@agentd/rpc-frame';
import type { PushWriter } from '@agentd/subscriptions';
import { ClientRequests } from './client-requests.js';
import type { CoreConnection, CoreHost, HandleOptions, LegacySession } from './core-types.js';
import type { Peer } from './handler.js';
import { InFlight } from './in-flight.js';
import { answerLegacyOwned, type LegacyMethodHost } from './legacy-methods.js';
import { ListenStreams } from './listen-streams.js';
import { serverError } from './local-errors.js';
import { errorFields } from './logger.js';
import { RequestScope, type ScopeIo } from './request-scope.js';
import { SlotPool } from './slot-pool.js';
import { bindActive, traceClientRequest, traceRequest } from './telemetry.js';
import type { Admission, WireProfile } from './wire-profile.js';

/** Why a request's signal aborted: decides whether (and how) it is still answered. */
const CANCELLED = 'cancelled';
const SHUTDOWN = 'shutdown';
const DISCONNECTED = 'disconnected';
/** Shared by every call that passes none (NDJSON streams): no object per frame. */
const NO_OPTIONS: HandleOptions = Object.freeze({});

export class Connection implements CoreConnection {
  private legacy: LegacySession | undefined;
  private logLevel: LogLevel | undefined;
  private readonly inFlight = new Map<RequestId, InFlight>();
  private listenStreams: ListenStreams | undefined;
  private readonly slots: SlotPool;
  /** Created on the first legacy server-to-client request: a stateless HTTP POST never needs one. */
  private clientRequests: ClientRequests | undefined;
  private isClosed = false;
  private legacyMethods: LegacyMethodHost | undefined;
  private legacyIo: ScopeIo | undefined;
  private modernIo: ScopeIo | undefined;
  private asker: ScopeIo['ask'];
  /** The server's capabilities now (one function per connection, handed to lifecycle to call when needed). */
  private readonly capabilities = (): ServerCapabilities => this.host.capabilities();
  /** Answers still waiting on the handler's subscribe gate: a close must not wait for a gate that hangs. */
  private readonly closeWaiters = new Set<() => void>();

  constructor(
    readonly peer: Peer,
    readonly writer: PushWriter,
    private readonly host: CoreHost,
  ) {
    this.slots = new SlotPool(host.maxInFlight);
  }

  /**
   * Built on first use: a stateless HTTP POST opens a connection per request and almost never
   * opens a listen stream, so it should not pay for the map and host closures.
   */
  private get listens(): ListenStreams {
    this.listenStreams ??= new ListenStreams({
      connectionId: this.peer.connectionId,
      writer: this.writer,
      registry: this.host.registry,
      serverInfo: this.host.serverInfo,
      logger: this.host.logger,
      maxSubscriptions: this.host.maxSubscriptions,
      isClosed: () => this.isClosed,
      canSubscribe: (uri) => this.canSubscribe(uri),
      canWatchTask: async (taskId) => (await this.host.handler.canWatchTask?.(taskId, this.peer)) === true,
    });
    return this.listenStreams;
  }

  get session(): LegacySession | undefined {
    return this.legacy;
  }

  get pending(): number {
    return this.slots.pending;
  }

  get listenCount(): number {
    return this.listenStreams?.size ?? 0;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  idle(): Promise<void> {
    return this.slots.idle();
  }

  runsAsRequest(frame: Classified): boolean {
    return frame.kind === 'request' || (frame.kind === 'notification' && this.host.profile !== undefined);
  }

  handle(frame: Classified, options: HandleOptions = NO_OPTIONS): Promise<JsonRpcResponse | undefined> {
    const profile = this.host.profile;
    if (profile !== undefined) return this.handleProfiled(profile, frame, options);
    switch (frame.kind) {
      case 'invalid':
        return Promise.resolve(invalidMessageResponse(frame));
      case 'notification':
        this.onNotification(frame.message);
        return Promise.resolve(undefined);
      case 'response':
        if (this.clientRequests?.settle(frame.message) !== true) {
          this.host.logger.debug('stray response ignored', {
            connectionId: this.peer.connectionId,
            id: frame.message.id,
          });
        }
        return Promise.resolve(undefined);
      case 'request': {
        const request = frame.message;
        // The one place every request passes: its span (a no-op without an OTel SDK) wraps it all.
        return traceRequest(this, request, options.traceCarrier, () => this.onRequestSafe(request, options));
      }
    }
  }

  /** A profiled core: the profile answers or admits every message; what it admits runs as any request. */
  private handleProfiled(
    profile: WireProfile,
    frame: Classified,
    options: HandleOptions,
  ): Promise<JsonRpcResponse | undefined> {
    let admission: Admission;
    try {
      admission = profile.admit(frame);
    } catch (thrown) {
      const id = frame.kind === 'request' ? frame.message.id : null;
      return Promise.resolve(errorResponse(id, this.wireError(thrown, frame).toJSON()));
    }
    if (admission.kind === 'answer') return Promise.resolve(admission.response);
    const { request, answerId } = admission;
    const routed = { ...options, classified: admission.classified };
    const answer = traceRequest(this, request, options.traceCarrier, () =>
      this.onRequestSafe(request, routed),
    );
    if (answerId === request.id) return answer;
    return answer.then((response) =>
      response === undefined ? undefined : ({ ...response, id: answerId } as JsonRpcResponse),
    );
  }

  close(options: { graceful?: boolean } = {}): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const graceful = options.graceful === true;
    this.listenStreams?.endAll(graceful);
    // Graceful: the peer can still read, so requests cut short are told why instead of left hanging.
    // (Most closes find nothing in flight: skip the copy.)
    if (this.inFlight.size > 0)
      for (const entry of [...this.inFlight.values()]) {
        this.abortEntry(entry, DISCONNECTED, graceful ? closingError(entry.id, false) : undefined);
      }
    this.clientRequests?.rejectAll();
    if (this.closeWaiters.size > 0) for (const onClose of [...this.closeWaiters]) onClose();
    this.host.registry.removeConnection(this.peer.connectionId);
    this.host.forget(this);
    this.host.logger.debug('connection closed', { connectionId: this.peer.connectionId });
    try {
      this.host.handler.onDisconnect?.(this.peer);
    } catch (thrown) {
      this.host.logger.error('handler.onDisconnect threw', {
        connectionId: this.peer.connectionId,
        ...errorFields(thrown),
      });
    }
  }

  /** Server shutdown: listen streams end with their final result, in-flight requests get -32000. */
  shutdown(): void {
    this.listenStreams?.endAll(true);
    for (const entry of [...this.inFlight.values()]) {
      this.abortEntry(entry, SHUTDOWN, closingError(entry.id, true));
    }
  }

  private onNotification(message: JsonRpcNotification): void {
    if (message.method === 'notifications/initialized') {
      if (this.legacy !== undefined) this.legacy = { ...this.legacy, initialized: true };
      return;
    }
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if (isRequestId(requestId)) this.cancel(requestId);
    }
    // Every other notification (roots/list_changed, progress, …) needs no action from the core.
  }

  /**
   * A client cancel: the request (a listen stream too) is aborted and never answered. A listen's
   * final result is only for streams the server ends itself; the client that cancelled has
   * already forgotten the id (the official v2 client reports a response to it as unknown).
   */
  private cancel(id: RequestId): void {
    if (this.listenStreams?.has(id) === true) {
      this.listenStreams.end(id, false);
      return;
    }
    const entry = this.inFlight.get(id);
    if (entry !== undefined) this.abortEntry(entry, CANCELLED, undefined);
  }

  /** onRequest, whose promise never rejects (the paths that can are caught there). */
  private onRequestSafe(
    request: JsonRpcRequest,
    options: HandleOptions,
  ): Promise<JsonRpcResponse | undefined> {
    try {
      return this.onRequest(request, options);
    } catch (thrown) {
      return Promise.resolve(this.failed(request, thrown));
    }
  }

  /** Synchronous up to the domain call: most requests cost no extra microtask hops here. */
  private onRequest(request: JsonRpcRequest, options: HandleOptions): Promise<JsonRpcResponse | undefined> {
    if (this.isClosed || this.host.closing) {
      return Promise.resolve(closingError(request.id, this.host.closing));
    }
    // Ids are map keys as they are: 1 and "1" are different requests, as JSON-RPC has it.
    if (this.inFlight.has(request.id) || this.listenStreams?.has(request.id) === true) {
      throw refuse.duplicateId(request.id);
    }
    const lifecycleOptions = this.host.lifecycleOptions;
    // The request's one `_meta` check: the transport's, when it already classified the request.
    const classified = options.classified ?? classifyRequest(request, lifecycleOptions);
    // Capabilities are read (at most once) only by the requests that show or check them.
    const answered = lifecycleResponse(
      request,
      this.host.serverInfo,
      this.capabilities,
      lifecycleOptions,
      classified,
    );
    if (answered !== undefined) {
      if (request.method === 'initialize' && 'result' in answered)
        this.startSession(request, answered.result);
      return Promise.resolve(answered);
    }
    // lifecycleResponse answers every refusal: `classified` is a RequestClass here.
    const { era, meta } = classified as RequestClass;
    if (era === 'legacy') {
      const owned = answerLegacyOwned(request, this.capabilities, this.legacyHost());
      if (owned !== undefined) {
        return this.untilClosed(
          request,
          owned.catch((thrown: unknown) => this.failed(request, thrown)),
        );
      }
      return this.runDomain(request, 'legacy', undefined, options);
    }
    if (request.method === 'subscriptions/listen') {
      return this.listens
        .open(request, this.capabilities(), meta.clientCapabilities, options.signal)
        .catch((thrown: unknown) => this.failed(request, thrown));
    }
    // runDomain's answer never rejects: handler failures become error responses inside it.
    return this.runDomain(request, 'modern', meta, options);
  }

  /**
   * `work`'s answer, or -32000 "Connection is closing" as soon as the connection closes: legacy
   * subscribe waits on the embedder's gate, and closing must settle even if the gate hangs.
   */
  private untilClosed(
    request: JsonRpcRequest,
    work: Promise<JsonRpcResponse | undefined>,
  ): Promise<JsonRpcResponse | undefined> {
    return new Promise((resolve) => {
      const onClose = (): void => resolve(closingError(request.id, false));
      this.closeWaiters.add(onClose);
      void work.then((response) => {
        this.closeWaiters.delete(onClose);
        resolve(response);
      });
    });
  }

  /** The error response for a request that failed before (or outside) the handler. */
  private failed(request: JsonRpcRequest, thrown: unknown): JsonRpcResponse {
    return errorResponse(request.id, this.wireError(thrown, request).toJSON());
  }

  private startSession(request: JsonRpcRequest, result: JsonObject): void {
    const params = request.params ?? {};
    this.legacy = {
      protocolVersion: result.protocolVersion as string,
      clientCapabilities: isJsonObject(params.capabilities) ? params.capabilities : {},
      clientInfo: isJsonObject(params.clientInfo) ? params.clientInfo : undefined,
      initialized: false,
    };
    // A legacy session receives list_changed without subscribing (MCP 2025-06-18 tools/resources/prompts).
    this.host.registry.attach(this.peer.connectionId, this.writer);
  }

  private legacyHost(): LegacyMethodHost {
    this.legacyMethods ??= {
      connectionId: this.peer.connectionId,
      writer: this.writer,
      registry: this.host.registry,
      maxSubscriptions: this.host.maxSubscriptions,
      canSubscribe: (uri) => this.canSubscribe(uri),
      setLogLevel: (level) => {
        this.logLevel = level;
      },
    };
    return this.legacyMethods;
  }

  private async canSubscribe(uri: string): Promise<boolean> {
    const gate = this.host.handler.canSubscribe;
    if (gate === undefined) return false;
    // The gate sees the canonical spelling, so one rule covers every way of writing a uri.
    return (await gate.call(this.host.handler, this.host.registry.canonicalize(uri), this.peer)) === true;
  }

  private runDomain(
    request: JsonRpcRequest,
    era: Era,
    meta: ModernMeta | undefined,
    options: HandleOptions,
  ): Promise<JsonRpcResponse | undefined> {
    const scope = this.scope(request, era, meta, options);
    const external = options.signal;
    const entry = new InFlight(request.id, scope, this.inFlight, external);
    this.inFlight.set(request.id, entry);
    if (external?.aborted === true) {
      this.abortEntry(entry, CANCELLED, undefined);
      return entry.answer;
    }
    if (external !== undefined) {
      entry.onExternalAbort = () => this.abortEntry(entry, CANCELLED, undefined);
      external.addEventListener('abort', entry.onExternalAbort, { once: true });
    }
    if (this.slots.tryAcquire()) void this.execute(request, era, entry);
    else {
      // Bound to this request's (span) context: a queued start runs from another request's release.
      entry.queued = bindActive((): void => {
        entry.queued = undefined;
        void this.execute(request, era, entry);
      });
      this.slots.enqueue(entry.queued);
    }
    return entry.answer;
  }

  /** Aborts a request's signal, gives up its queue place, and answers it now with `response`. */
  private abortEntry(entry: InFlight, reason: string, response: JsonRpcResponse | undefined): void {
    entry.scope.abort(reason);
    if (entry.queued !== undefined) this.slots.withdraw(entry.queued);
    entry.settle(response);
  }

  /** Runs the handler with a slot held; the slot is freed only when the handler really settles. */
  private async execute(request: JsonRpcRequest, era: Era, entry: InFlight): Promise<void> {
    const { scope } = entry;
    let response: JsonRpcResponse | undefined;
    try {
      const result = await this.host.handler.handle(request, scope.context);
      if (!isJsonObject(result)) {
        throw serverError('invalid_result', `handler returned a non-object result for ${request.method}`);
      }
      if (!scope.aborted) {
        response = successResponse(
          request.id,
          era === 'modern' ? modernResult(result, this.host.serverInfo) : result,
        );
      }
    } catch (thrown) {
      if (!scope.aborted) response = this.errorAnswer(request, thrown);
    }
    this.slots.release();
    entry.settle(response);
  }

  /** A handler's failure as its answer; a failure to describe it becomes a generic -32603. */
  private errorAnswer(request: JsonRpcRequest, thrown: unknown): JsonRpcResponse {
    try {
      return errorResponse(request.id, this.wireError(thrown, request).toJSON());
    } catch (again) {
      return errorResponse(request.id, toWireError(again).toJSON());
    }
  }

  private scope(
    request: JsonRpcRequest,
    era: Era,
    meta: ModernMeta | undefined,
    options: HandleOptions,
  ): RequestScope {
    const io = this.scopeIo(era, options);
    // Modern: lifecycle checked this request's `_meta` once; its result is passed on as it is.
    if (meta !== undefined)
      return new RequestScope(this.peer, request.id, era, meta, meta.progressToken, meta.logLevel, io);
    // Legacy: the client is the session's; only the progress token comes from the request.
    const raw = request.params?._meta;
    const token = isJsonObject(raw) && isRequestId(raw.progressToken) ? raw.progressToken : undefined;
    const client = this.legacy ?? this.noSession();
    return new RequestScope(this.peer, request.id, era, client, token, this.logLevel, io);
  }

  /**
   * How a request's scope writes and asks. Without a per-request `notify` (NDJSON streams) the io
   * is the same for every request of an era, so it is built once per connection, not per call.
   */
  private scopeIo(era: Era, options: HandleOptions): ScopeIo {
    const notify = options.notify;
    if (notify === undefined) {
      if (era === 'legacy') {
        this.legacyIo ??= { send: (message) => this.writer.write(message), ask: this.askFor };
        return this.legacyIo;
      }
      this.modernIo ??= { send: (message) => this.writer.write(message) };
      return this.modernIo;
    }
    const io: ScopeIo = {
      send: (message) => {
        notify.call(options, message as JsonRpcNotification | JsonRpcRequest);
        return true;
      },
    };
    if (era === 'legacy') {
      io.ask = this.askFor;
      const close = options.closeStream;
      if (close !== undefined) io.closeStream = () => close.call(options);
    }
    return io;
  }

  /** A legacy scope's server-to-client request; one per connection (it reads the rest from the scope). */
  private get askFor(): NonNullable<ScopeIo['ask']> {
    this.asker ??= (method, params, scope) =>
      this.askClient(method, params, (message, force) => scope.send(message, force), scope.context.signal);
    return this.asker;
  }

  private askClient(
    method: string,
    params: JsonObject,
    send: (message: JsonRpcMessage, force?: boolean) => boolean,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    this.clientRequests ??= new ClientRequests(this.host.clientRequestTimeoutMs);
    const requests = this.clientRequests;
    return traceClientRequest(method, params, (traced) => requests.send(method, traced, send, signal));
  }

  /** A legacy request before (or without) `initialize`: the newest legacy version, no capabilities. */
  private noSession(): LegacySession {
    const protocolVersion =
      resolveLifecycle(this.host.lifecycleOptions).newestLegacy ?? (LEGACY_VERSIONS[0] as string);
    return { protocolVersion, clientCapabilities: {}, clientInfo: undefined, initialized: false };
  }

  private wireError(thrown: unknown, frame: Classified | JsonRpcRequest): WireError {
    return toWireError(thrown, (internal) => {
      const method =
        'method' in frame ? frame.method : frame.kind === 'request' ? frame.message.method : frame.kind;
      this.host.logger.error('request failed with an internal error', {
        connectionId: this.peer.connectionId,
        method,
        ...errorFields(internal),
      });
    });
  }
}

/** -32000 on every transport: the server shutting down, or the peer's connection closing. */
function closingError(id: RequestId, serverShutdown: boolean): JsonRpcResponse {
  return errorResponse(id, (serverShutdown ? refuse.shuttingDown() : refuse.connectionClosing()).toJSON());
}
