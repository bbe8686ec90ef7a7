/** One logical connection of the engine: request routing, legacy session, cancellation, listen streams. */
import {
  checkModernMeta,
  type Era,
  isLoggingLevel,
  LEGACY_VERSIONS,
  LOGGING_LEVELS,
  type LoggingLevel,
  lifecycleResponse,
  type ModernMeta,
  modernResult,
  resolveLifecycle,
  type ServerCapabilities,
  servedEra,
} from '@agentd/lifecycle';
import {
  type Classified,
  ErrorCode,
  errorResponse,
  invalidMessageResponse,
  isJsonObject,
  isRequestId,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  LocalError,
  type RequestId,
  successResponse,
  toWireError,
  WireError,
} from '@agentd/rpc-frame';
import { ListenStream, type PushWriter } from '@agentd/subscriptions';
import { ClientRequests } from './client-requests.js';
import type { CoreConnection, HandleOptions, LegacySession } from './core-types.js';
import type { Peer, RequestContext } from './handler.js';
import { deliversListenNotifications, honourListenFilter, parseListenFilter } from './listen-filter.js';
import { errorFields } from './logger.js';
import type { CoreHost } from './server-core.js';
import { SlotPool } from './slot-pool.js';

/** Why a request's signal aborted: decides whether (and how) it is still answered. */
const CANCELLED = 'cancelled';
const SHUTDOWN = 'shutdown';
const DISCONNECTED = 'disconnected';

export const SHUTTING_DOWN_CODE = -32000;

interface InFlight {
  readonly id: RequestId;
  readonly controller: AbortController;
  readonly settleEarly: (response: JsonRpcResponse | undefined) => void;
}

interface OpenListen {
  readonly stream: ListenStream;
  readonly finish: (response: JsonRpcResponse | undefined) => void;
}

/** Map key for a request id: 1 and "1" are different requests. */
function idKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

export class Connection implements CoreConnection {
  private legacy: LegacySession | undefined;
  private logLevel: LoggingLevel | undefined;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly listens = new Map<string, OpenListen>();
  private readonly slots: SlotPool;
  private readonly clientRequests: ClientRequests;
  private isClosed = false;

  constructor(
    readonly peer: Peer,
    readonly writer: PushWriter,
    private readonly host: CoreHost,
  ) {
    this.slots = new SlotPool(host.maxInFlight);
    this.clientRequests = new ClientRequests(host.clientRequestTimeoutMs);
  }

  get session(): LegacySession | undefined {
    return this.legacy;
  }

  get pending(): number {
    return this.slots.pending;
  }

  get listenCount(): number {
    return this.listens.size;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  idle(): Promise<void> {
    return this.slots.idle();
  }

  async handle(frame: Classified, options: HandleOptions = {}): Promise<JsonRpcResponse | undefined> {
    try {
      switch (frame.kind) {
        case 'invalid':
          return invalidMessageResponse(frame);
        case 'notification':
          this.onNotification(frame.message);
          return undefined;
        case 'response':
          if (!this.clientRequests.settle(frame.message)) {
            this.host.logger.debug('stray response ignored', {
              connectionId: this.peer.connectionId,
              id: frame.message.id,
            });
          }
          return undefined;
        case 'request':
          return await this.onRequest(frame.message, options);
      }
    } catch (thrown) {
      const id = frame.kind === 'request' ? frame.message.id : null;
      return errorResponse(id, this.wireError(thrown, frame).toJSON());
    }
  }

  close(options: { graceful?: boolean } = {}): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const key of [...this.listens.keys()]) this.endListen(key, options.graceful === true);
    for (const entry of [...this.inFlight.values()]) {
      entry.controller.abort(DISCONNECTED);
      entry.settleEarly(undefined);
    }
    this.clientRequests.rejectAll();
    this.host.registry.removeConnection(this.peer.connectionId);
    this.host.forget(this);
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
    for (const key of [...this.listens.keys()]) this.endListen(key, true);
    const answer = (id: RequestId) =>
      errorResponse(id, { code: SHUTTING_DOWN_CODE, message: 'Server is shutting down' });
    for (const entry of [...this.inFlight.values()]) {
      entry.controller.abort(SHUTDOWN);
      entry.settleEarly(answer(entry.id));
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

  /** A client cancel: a listen stream ends with its final result; a request is aborted and never answered. */
  private cancel(id: RequestId): void {
    const key = idKey(id);
    if (this.listens.has(key)) {
      this.endListen(key, true);
      return;
    }
    const entry = this.inFlight.get(key);
    if (entry === undefined) return;
    entry.controller.abort(CANCELLED);
    entry.settleEarly(undefined);
  }

  private async onRequest(
    request: JsonRpcRequest,
    options: HandleOptions,
  ): Promise<JsonRpcResponse | undefined> {
    if (this.isClosed || this.host.closing) {
      const message = this.host.closing ? 'Server is shutting down' : 'Connection is closing';
      return errorResponse(request.id, { code: SHUTTING_DOWN_CODE, message });
    }
    const key = idKey(request.id);
    if (this.inFlight.has(key) || this.listens.has(key)) {
      throw new WireError(
        ErrorCode.InvalidRequest,
        `Invalid Request: id ${JSON.stringify(request.id)} is already in use`,
      );
    }
    const capabilities = this.host.capabilities();
    const lifecycleOptions = this.host.lifecycleOptions;
    const answered = lifecycleResponse(request, this.host.serverInfo, capabilities, lifecycleOptions);
    const era = servedEra(request, lifecycleOptions);
    if (answered !== undefined) {
      if (era === 'legacy' && request.method === 'initialize' && 'result' in answered)
        this.startSession(request, answered.result);
      return answered;
    }
    if (era === 'legacy') {
      const owned = await this.legacyOwned(request, capabilities);
      if (owned !== undefined) return owned;
      return this.runDomain(request, 'legacy', undefined, options);
    }
    const meta = checkModernMeta(request, lifecycleOptions);
    if (request.method === 'subscriptions/listen') return this.listen(request, capabilities, options);
    return this.runDomain(request, 'modern', meta, options);
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

  /** Legacy methods the core answers itself; undefined for domain methods. */
  private async legacyOwned(
    request: JsonRpcRequest,
    caps: ServerCapabilities,
  ): Promise<JsonRpcResponse | undefined> {
    switch (request.method) {
      case 'logging/setLevel':
        return this.setLevel(request, caps);
      case 'resources/subscribe':
        return this.subscribe(request, caps);
      case 'resources/unsubscribe': {
        this.requireSubscriptions(request.method, caps);
        this.host.registry.drop(this.peer.connectionId, requireUri(request));
        return successResponse(request.id, {});
      }
      default:
        return undefined;
    }
  }

  private setLevel(request: JsonRpcRequest, caps: ServerCapabilities): JsonRpcResponse {
    if (caps.logging === undefined) {
      throw new WireError(
        ErrorCode.MethodNotFound,
        'Method not found: logging/setLevel (this server does not log to clients)',
      );
    }
    const level = request.params?.level;
    if (!isLoggingLevel(level)) {
      throw new WireError(
        ErrorCode.InvalidParams,
        `Invalid params: level must be one of ${LOGGING_LEVELS.join(', ')}`,
      );
    }
    this.logLevel = level;
    return successResponse(request.id, {});
  }

  private async subscribe(request: JsonRpcRequest, caps: ServerCapabilities): Promise<JsonRpcResponse> {
    this.requireSubscriptions(request.method, caps);
    const uri = requireUri(request);
    if (!(await this.canSubscribe(uri))) {
      throw new WireError(ErrorCode.InvalidParams, `Resource cannot be subscribed to: ${uri}`, { uri });
    }
    this.host.registry.register(this.peer.connectionId, uri, this.writer);
    return successResponse(request.id, {});
  }

  private requireSubscriptions(method: string, caps: ServerCapabilities): void {
    if (caps.resources?.subscribe !== true) {
      throw new WireError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (this server offers no resource subscriptions)`,
      );
    }
  }

  private async canSubscribe(uri: string): Promise<boolean> {
    const gate = this.host.handler.canSubscribe;
    if (gate === undefined) return false;
    // The gate sees the canonical spelling, so one rule covers every way of writing a uri.
    return (await gate.call(this.host.handler, this.host.registry.canonicalize(uri), this.peer)) === true;
  }

  private async listen(
    request: JsonRpcRequest,
    caps: ServerCapabilities,
    options: HandleOptions,
  ): Promise<JsonRpcResponse | undefined> {
    if (!deliversListenNotifications(caps)) {
      throw new WireError(
        ErrorCode.MethodNotFound,
        'Method not found: subscriptions/listen (this server delivers no notifications)',
      );
    }
    const requested = parseListenFilter(request.params);
    const filter = await honourListenFilter(requested, caps, async (uri) => {
      try {
        return await this.canSubscribe(uri);
      } catch {
        return false; // a refused uri is left out of the honoured subset
      }
    });
    const signal = options.signal;
    if (signal?.aborted === true || this.isClosed) return undefined;
    const stream = new ListenStream({
      subscriptionId: request.id,
      filter,
      target: this.writer,
      canonicalize: this.host.registry.canonicalize,
    });
    const key = idKey(request.id);
    const done = new Promise<JsonRpcResponse | undefined>((resolve) => {
      this.listens.set(key, { stream, finish: resolve });
    });
    // The ack is the stream's first message; nothing can be pushed before it is registered.
    stream.acknowledge();
    this.host.registry.addListen(this.peer.connectionId, stream);
    signal?.addEventListener('abort', () => this.endListen(key, false), { once: true });
    return done;
  }

  private endListen(key: string, graceful: boolean): void {
    const open = this.listens.get(key);
    if (open === undefined) return;
    this.listens.delete(key);
    this.host.registry.removeListen(this.peer.connectionId, open.stream);
    open.stream.close();
    if (!graceful) {
      open.finish(undefined);
      return;
    }
    const final = open.stream.finalResult();
    open.finish(successResponse(final.id, modernResult(final.result, this.host.serverInfo)));
  }

  private async runDomain(
    request: JsonRpcRequest,
    era: Era,
    meta: ModernMeta | undefined,
    options: HandleOptions,
  ): Promise<JsonRpcResponse | undefined> {
    const key = idKey(request.id);
    const controller = new AbortController();
    let settleEarly: (response: JsonRpcResponse | undefined) => void = () => {};
    const early = new Promise<JsonRpcResponse | undefined>((resolve) => {
      settleEarly = resolve;
    });
    this.inFlight.set(key, { id: request.id, controller, settleEarly });
    const external = options.signal;
    const onExternalAbort = (): void => {
      controller.abort(CANCELLED);
      settleEarly(undefined);
    };
    if (external?.aborted === true) onExternalAbort();
    else external?.addEventListener('abort', onExternalAbort, { once: true });
    try {
      if (!(await this.slots.acquire(controller.signal))) return await early;
      const context = this.context(request, era, meta, controller.signal, options);
      const outcome = this.invoke(request, era, context);
      // The slot is held until the handler really settles, even when the answer went out early.
      void outcome.finally(() => this.slots.release());
      return await Promise.race([outcome, early]);
    } finally {
      this.inFlight.delete(key);
      external?.removeEventListener('abort', onExternalAbort);
    }
  }

  private async invoke(
    request: JsonRpcRequest,
    era: Era,
    context: RequestContext,
  ): Promise<JsonRpcResponse | undefined> {
    try {
      const result = await this.host.handler.handle(request, context);
      if (!isJsonObject(result))
        throw new LocalError('invalid_result', `handler returned a non-object result for ${request.method}`);
      if (context.signal.aborted) return undefined;
      return successResponse(
        request.id,
        era === 'modern' ? modernResult(result, this.host.serverInfo) : result,
      );
    } catch (thrown) {
      if (context.signal.aborted) return undefined;
      return errorResponse(request.id, this.wireError(thrown, request).toJSON());
    }
  }

  private context(
    request: JsonRpcRequest,
    era: Era,
    meta: ModernMeta | undefined,
    signal: AbortSignal,
    options: HandleOptions,
  ): RequestContext {
    // `force` lets the cancel of an outstanding client request out after the signal aborted.
    const sink = (message: JsonRpcMessage, force = false): boolean => {
      if (signal.aborted && !force) return false;
      if (options.notify !== undefined) {
        options.notify(message as JsonRpcNotification | JsonRpcRequest);
        return true;
      }
      return this.writer.write(message);
    };
    const session = this.legacy;
    const rawToken = request.params?._meta;
    const legacyToken =
      isJsonObject(rawToken) && isRequestId(rawToken.progressToken) ? rawToken.progressToken : undefined;
    return {
      peer: this.peer,
      era,
      protocolVersion: meta?.protocolVersion ?? session?.protocolVersion ?? this.defaultLegacyVersion(),
      clientCapabilities: meta?.clientCapabilities ?? session?.clientCapabilities ?? {},
      clientInfo: meta?.clientInfo ?? session?.clientInfo,
      requestId: request.id,
      signal,
      progressToken: meta !== undefined ? meta.progressToken : legacyToken,
      logLevel: meta !== undefined ? meta.logLevel : this.logLevel,
      notify: (message) => {
        sink(message);
      },
      sendRequest:
        era === 'legacy'
          ? (method, params) => this.clientRequests.send(method, params, sink, signal)
          : undefined,
    };
  }

  private defaultLegacyVersion(): string {
    return resolveLifecycle(this.host.lifecycleOptions).newestLegacy ?? (LEGACY_VERSIONS[0] as string);
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

function requireUri(request: JsonRpcRequest): string {
  const uri = request.params?.uri;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw new WireError(
      ErrorCode.InvalidParams,
      `Invalid params: ${request.method} requires params.uri (string)`,
    );
  }
  return uri;
}
