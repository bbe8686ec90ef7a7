/** The context every tool, prompt and resource handler receives: signal, peer, progress, log and client input. */
import { clientExtension } from '@agentd/lifecycle';
import {
  isLogLevel,
  type JsonObject,
  type LogLevel,
  logLevelEnabled,
  type RequestId,
} from '@agentd/rpc-frame';
import type { Era, Peer, RequestContext } from '@agentd/server';
import type { InputSession } from './input-session.js';
import { type RequestState, stateOf } from './per-request-state.js';
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

export interface HandlerContext {
  /** Aborted on cancel, disconnect, HTTP stream close or shutdown. */
  readonly signal: AbortSignal;
  /** Who is calling: origin, connection, transport facts and, when it authenticated, `peer.auth`. */
  readonly peer: Peer;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly requestId: RequestId;
  /** Answers gathered so far (modern: verified `requestState` plus this request's `inputResponses`). */
  readonly inputResponses: Readonly<JsonObject>;
  /** The raw per-request facts from the server core. */
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

/** Builds the request's InputSession on first use; carries the answers known before it exists. */
interface InputSessionSource {
  (): InputSession;
  readonly responses: JsonObject;
}

/** Per-request state the dispatcher closes over; `finish()` stops late progress/log writes. */
interface ContextControl {
  context: HandlerContext;
  finish(): void;
}

/**
 * `session` may be a factory: the input session (two Maps) is then only built when the handler
 * asks the client for something, which most calls never do.
 */
export function createHandlerContext(
  request: RequestContext,
  session: InputSession | InputSessionSource,
  signal?: AbortSignal,
): ContextControl {
  const input = typeof session === 'function' ? session : () => session;
  let finished = false;
  let lastProgress = Number.NEGATIVE_INFINITY;
  const send = (method: string, params: JsonObject): boolean => {
    if (finished) return false;
    try {
      request.notify({ jsonrpc: '2.0', method, params });
      return true;
    } catch {
      return false;
    }
  };
  const context: HandlerContext = {
    // A getter: the core creates its AbortController only when someone reads the signal.
    get signal() {
      return signal ?? request.signal;
    },
    peer: request.peer,
    era: request.era,
    protocolVersion: request.protocolVersion,
    clientCapabilities: request.clientCapabilities,
    clientInfo: request.clientInfo,
    requestId: request.requestId,
    inputResponses: session.responses,
    request,
    // A getter: the bag is only made when someone reads it.
    get state() {
      return stateOf(request);
    },
    progress(progress, total, message) {
      const token = request.progressToken;
      if (token === undefined || !Number.isFinite(progress) || progress <= lastProgress) return false;
      if (total !== undefined && !Number.isFinite(total)) return false;
      lastProgress = progress;
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      return send('notifications/progress', params);
    },
    log(level, data, logger) {
      const threshold = request.logLevel;
      if (threshold === undefined || !isLogLevel(level) || !logLevelEnabled(level, threshold)) return false;
      const params: JsonObject = { level, data: data ?? null };
      if (logger !== undefined) params.logger = logger;
      return send('notifications/message', params);
    },
    supports(capability) {
      const value = request.clientCapabilities[capability];
      return typeof value === 'object' && value !== null;
    },
    extension: (id) => clientExtension(request.clientCapabilities, id),
    elicit: (params, options) =>
      input().ask('elicitation/create', params, options?.key) as Promise<ElicitResult<never>>,
    sample: (params, options) => input().ask('sampling/createMessage', params, options?.key),
    listRoots: (options) => input().ask('roots/list', {}, options?.key),
    detach: () => Promise.resolve(undefined),
  };
  return {
    context,
    finish() {
      finished = true;
    },
  };
}
