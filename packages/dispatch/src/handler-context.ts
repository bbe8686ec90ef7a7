/** The context every tool, prompt and resource handler receives: signal, peer, progress, log and client input. */
import { clientExtension } from '@agentd/lifecycle';
import {
  isLogLevel,
  type JsonObject,
  type JsonRpcNotification,
  type LogLevel,
  logLevelEnabled,
  type RequestId,
} from '@agentd/rpc-frame';
import type { Era, Peer, RequestContext } from '@agentd/server';
import { InputSession } from './input-session.js';
import type { RequestState } from './per-request-state.js';
import { RequestView } from './request-view.js';
import type { InferArgs } from './tool-schema.js';

interface InputOptions {
  /** The `inputRequests` key; defaults to `elicit_N` / `sample_N` / `roots_N` in call order. Keep keys stable across rounds. */
  key?: string;
}

/** The client's answer to `elicitation/create`: `content` is present when `action` is `accept`. */
type ElicitResult<Content = Record<string, unknown>> = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Content;
  _meta?: JsonObject;
};

type ElicitContent<P> = P extends { requestedSchema: infer S } ? InferArgs<S> : Record<string, unknown>;

/**
 * What a tool, prompt or resource handler receives: the request's one `RequestContext` (who calls,
 * the era and client, the signal, progress token and log level) and the handler's helpers.
 */
export interface HandlerContext extends RequestContext {
  /** Answers gathered so far (modern: verified `requestState` plus this request's `inputResponses`). */
  readonly inputResponses: Readonly<JsonObject>;
  /** The server core's context of this request (the facts above come from it). */
  readonly request: RequestContext;
  /** This request's bag: what middleware (`Dispatcher.use`) put there. */
  readonly state: RequestState;
  /** Sends `notifications/progress` when the request carried a progressToken and `progress` increased; else false. */
  progress(progress: number, total?: number, message?: string): boolean;
  /** Sends `notifications/message` when the client asked for logs at or below `level`; else false. */
  log(level: LogLevel, data: unknown, logger?: string): boolean;
  /** Whether this request's client declared the capability. */
  supports(capability: 'elicitation' | 'sampling' | 'roots'): boolean;
  /**
   * The settings this request's client declared for extension `id` (legacy: in `initialize`;
   * 2026-07-28: in this request's `_meta` client capabilities), or undefined when it did not.
   * E.g. `context.extension('io.modelcontextprotocol/ui')?.mimeTypes`.
   */
  extension(id: string): Readonly<JsonObject> | undefined;
  /**
   * `elicitation/create`; resolves to the ElicitResult `{action, content?}`. With a literal
   * `requestedSchema`, `content` is typed from it (as tool arguments are).
   */
  elicit<const P extends JsonObject>(
    params: P,
    options?: InputOptions,
  ): Promise<ElicitResult<ElicitContent<P>>>;
  /** `sampling/createMessage`; resolves to the CreateMessageResult. */
  sample(params: JsonObject, options?: InputOptions): Promise<JsonObject>;
  /** `roots/list`; resolves to `{roots: [{uri, name?}]}`. */
  listRoots(options?: InputOptions): Promise<JsonObject>;
  /**
   * Tools with `task: {start: 'handler'}`: answer this call with a task now and go on in the
   * background. Resolves to the task id, or undefined when the call stays a normal one (the
   * client cannot take tasks, or the tool has no task support).
   */
  detach(): Promise<string | undefined>;
}

/**
 * One call's mutable state. The context reaches it through a symbol key, so `Object.keys` or a
 * spread of the context shows the request's facts only, and contexts derived from it by
 * `Object.create` share it.
 */
export class CallControl {
  readonly context: HandlerContext;
  finished = false;
  lastProgress = Number.NEGATIVE_INFINITY;
  #session: InputSession | undefined;

  constructor(
    readonly request: RequestContext,
    readonly responses: JsonObject,
    session: InputSession | undefined,
    readonly signal: AbortSignal | undefined,
  ) {
    this.#session = session;
    // The methods are installed on the prototype below.
    this.context = new CallContext(this) as CallContext & Methods;
  }

  /** Stops late progress/log writes once the request has answered. */
  finish(): void {
    this.finished = true;
  }

  /** The input session if the handler asked the client for anything, else undefined. */
  get openedSession(): InputSession | undefined {
    return this.#session;
  }

  /** Built on first use: most calls never ask the client for input. */
  inputSession(): InputSession {
    this.#session ??= new InputSession(this.request, this.responses);
    return this.#session;
  }

  notify(method: string, params: JsonObject): boolean {
    if (this.finished) return false;
    try {
      this.request.notify({ jsonrpc: '2.0', method, params });
      return true;
    } catch {
      return false;
    }
  }
}

const CONTROL: unique symbol = Symbol('agentd.callControl');

/**
 * A class, not an object literal of closures: one allocation per call. The methods live on the
 * prototype and are bound on first read, so `const { progress } = context` keeps working.
 */
class CallContext extends RequestView {
  /** Symbol-keyed: not among the keys a handler lists, and kept on contexts derived by `Object.create`. */
  readonly [CONTROL]: CallControl;
  readonly peer: Peer;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  readonly inputResponses: Readonly<JsonObject>;

  constructor(control: CallControl) {
    const { request } = control;
    super(request);
    this[CONTROL] = control;
    this.peer = request.peer;
    this.era = request.era;
    this.protocolVersion = request.protocolVersion;
    this.clientCapabilities = request.clientCapabilities;
    this.clientInfo = request.clientInfo;
    this.requestId = request.requestId;
    this.inputResponses = control.responses;
  }

  // A getter: the core creates its AbortController only when someone reads the signal.
  get signal(): AbortSignal {
    const control = this[CONTROL];
    return control.signal ?? control.request.signal;
  }
}

type Methods = Pick<
  HandlerContext,
  'notify' | 'progress' | 'log' | 'supports' | 'extension' | 'elicit' | 'sample' | 'listRoots' | 'detach'
>;

const METHODS: { [K in keyof Methods]: (this: CallContext, ...args: Parameters<Methods[K]>) => unknown } = {
  notify(message: JsonRpcNotification) {
    const control = this[CONTROL];
    // Like progress and log: nothing more is written for a request that has answered.
    if (!control.finished) control.request.notify(message);
  },
  progress(progress, total, message) {
    const control = this[CONTROL];
    const token = control.request.progressToken;
    if (token === undefined || !Number.isFinite(progress) || progress <= control.lastProgress) return false;
    if (total !== undefined && !Number.isFinite(total)) return false;
    control.lastProgress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return control.notify('notifications/progress', params);
  },
  log(level, data, logger) {
    const control = this[CONTROL];
    const threshold = control.request.logLevel;
    if (threshold === undefined || !isLogLevel(level) || !logLevelEnabled(level, threshold)) return false;
    const params: JsonObject = { level, data: data ?? null };
    if (logger !== undefined) params.logger = logger;
    return control.notify('notifications/message', params);
  },
  supports(capability) {
    const value = this.clientCapabilities[capability];
    return typeof value === 'object' && value !== null;
  },
  extension(id) {
    return clientExtension(this.clientCapabilities, id);
  },
  elicit(params, options) {
    return this[CONTROL].inputSession().ask('elicitation/create', params, options?.key);
  },
  sample(params, options) {
    return this[CONTROL].inputSession().ask('sampling/createMessage', params, options?.key);
  },
  listRoots(options) {
    return this[CONTROL].inputSession().ask('roots/list', {}, options?.key);
  },
  detach() {
    return Promise.resolve(undefined);
  },
};

for (const [name, method] of Object.entries(METHODS)) {
  Object.defineProperty(CallContext.prototype, name, {
    configurable: true,
    get(this: CallContext) {
      // Bound to the object it was read from, so contexts derived by Object.create keep their overrides.
      const bound = (method as (...args: unknown[]) => unknown).bind(this);
      if (Object.isExtensible(this))
        Object.defineProperty(this, name, { value: bound, configurable: true, writable: true });
      return bound;
    },
  });
}

/**
 * `input` is the request's InputSession, or the answers known so far: the session (two Maps) is
 * then only built when the handler asks the client for something, which most calls never do.
 */
export function createHandlerContext(
  request: RequestContext,
  input: InputSession | JsonObject,
  signal?: AbortSignal,
): CallControl {
  return input instanceof InputSession
    ? new CallControl(request, input.responses, input, signal)
    : new CallControl(request, input, undefined, signal);
}

/** The same call's context with another signal (a Code Mode operation runs under its script's). */
export function withSignal(context: HandlerContext, signal: AbortSignal): HandlerContext {
  return Object.create(context, { signal: { value: signal, enumerable: true } }) as HandlerContext;
}
