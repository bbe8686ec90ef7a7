/** ContractServer: the stateless tool-server contract of examples/mcp-server, as a thin profile over a Dispatcher. */

import { eraOfVersion, isLoggingLevel, MetaKey, MODERN_VERSION, refuse } from '@agentd/lifecycle';
import {
  classify,
  ErrorCode,
  errorFields,
  errorResponse,
  invalidMessageResponse,
  isJsonObject,
  isRequestId,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type Logger,
  type RequestId,
  toWireError,
} from '@agentd/rpc-frame';
import type { Peer, RequestContext } from '@agentd/server';
import { RAW_INPUT_REQUESTS } from './client-input-round.js';
import { consoleLogger } from './console-logger.js';
import { Dispatcher } from './dispatcher.js';
import { InputRequired } from './input-required.js';
import {
  CONTRACT_METHODS,
  contractSuccess,
  declaredVersion,
  handlerFailed,
  initializeRemoved,
  invalidArgumentsText,
  invalidRequest,
  notARequest,
  toolNotFound,
  versionRefused,
  withContractInput,
  withoutNullId,
} from './mcp-contract.js';
import type { Middleware } from './middleware.js';
import type { ToolCallHook } from './tool-call-hooks.js';

/** `handler(arguments, inputResponses)`; may be async; throw `InputRequired` to ask the client for input. */
/** `inputResponses` is undefined when the call carried none, as in the seed contract. */
export type McpToolHandler = (
  args: Record<string, unknown>,
  inputResponses: JsonObject | undefined,
) => unknown;

export interface ContractServerOptions {
  /**
   * Internal errors (a failing dispatcher, never a tool's own throw, which the contract answers
   * as `Error: <message>`) and debug records of tool throws. Default: warnings and errors through
   * `console` (stderr on Node; stdout stays protocol-only under `serveMcpStdio`).
   */
  logger?: Logger;
  /** HMAC key / lifetime of the `requestState` attached to input_required results. */
  requestState?: { key?: string | Uint8Array; ttlMs?: number };
  /** Who requests come from when `handleRequest` names no peer (default: an in-process management peer). */
  peer?: Peer;
}

export interface HandleRequestOptions {
  /** Aborts the tool's handler context (e.g. the HTTP client went away). */
  signal?: AbortSignal;
  /** Receives request-scoped notifications (progress, log messages). */
  notify?: (notification: JsonRpcNotification) => void;
  /** The transport's peer for this request (default: the server's `peer` option). */
  peer?: Peer;
}

const DEFAULT_PEER: Peer = Object.freeze({
  origin: 'management',
  connectionId: 'mcp-server',
  transport: 'in-process',
  attributes: Object.freeze({}),
});

/** Without declared capabilities the contract's client is assumed to answer every kind of input request. */
const ALL_INPUT_CAPABILITIES: JsonObject = Object.freeze({ elicitation: {}, sampling: {}, roots: {} });

const noSignal = new AbortController().signal;

export class ContractServer {
  /** The dispatcher behind this face; serve it through `@agentd/server` to reach the same tools over a transport. */
  readonly dispatcher: Dispatcher;
  readonly #peer: Peer;
  readonly #logger: Logger;

  constructor(options: ContractServerOptions = {}) {
    this.#logger = options.logger ?? consoleLogger;
    this.dispatcher = new Dispatcher({
      logger: this.#logger,
      ...(options.requestState ? { requestState: options.requestState } : {}),
      schemaScheme: false,
      formatInvalidArguments: invalidArgumentsText,
    });
    this.#peer = options.peer ?? DEFAULT_PEER;
  }

  /** Registers (or replaces) a tool. `schema` is its JSON Schema input (an object schema). */
  registerTool(name: string, description: string, schema: JsonObject, handler: McpToolHandler): void {
    const inputSchema =
      isJsonObject(schema) && schema.type === undefined ? { type: 'object', ...schema } : schema;
    this.dispatcher.removeTool(name);
    this.dispatcher.registerTool({
      name,
      description,
      inputSchema,
      handler: async (args, context) => {
        try {
          const answers = context.inputResponses;
          const output = await handler(args, Object.keys(answers).length === 0 ? undefined : { ...answers });
          if (typeof output === 'string' || (typeof output === 'object' && output !== null)) return output;
          return String(output);
        } catch (thrown) {
          if (thrown instanceof InputRequired) throw thrown;
          this.#logger.debug('ContractServer: tool threw', { tool: name, ...errorFields(thrown) });
          return handlerFailed(thrown);
        }
      },
    });
  }

  /** Adds request middleware to the dispatcher behind this face (see `Dispatcher.use`). */
  use(middleware: Middleware): this {
    this.dispatcher.use(middleware);
    return this;
  }

  /** Adds a tool-call hook to the dispatcher behind this face (see `Dispatcher.useToolCall`). */
  useToolCall(hook: ToolCallHook): this {
    this.dispatcher.useToolCall(hook);
    return this;
  }

  /** Answers one JSON-RPC request object; always resolves to a response object. */
  async handleRequest(request: unknown, options: HandleRequestOptions = {}): Promise<JsonObject> {
    const verdict = classify(withoutNullId(request));
    if (verdict.kind === 'invalid') return { ...invalidRequest(request, verdict) };
    if (verdict.kind === 'response') return { ...notARequest(request) };
    const message = verdict.message;
    const id = 'id' in message ? message.id : null;
    if (message.method === 'initialize') return { ...initializeRemoved(id) };
    const requested = declaredVersion(message as unknown as JsonObject);
    // The contract serves the modern era only; which versions belong to it is lifecycle's to say.
    if (requested !== undefined && (typeof requested !== 'string' || eraOfVersion(requested) !== 'modern'))
      return { ...versionRefused(id, requested) };
    if (!CONTRACT_METHODS.has(message.method)) {
      return { ...errorResponse(id, refuse.methodNotFound(message.method).toJSON()) };
    }
    const params: JsonObject = { ...message.params };
    if (message.method === 'tools/call') {
      if (typeof params.name === 'string' && !this.dispatcher.hasTool(params.name)) {
        return contractSuccess(id, toolNotFound());
      }
      // Contract leniency: `arguments: null` means none, and answers that are not an object are ignored.
      if (params.arguments === null) delete params.arguments;
      if (!isJsonObject(params.inputResponses)) delete params.inputResponses;
    }
    return this.#dispatch(id, message.method, params, options);
  }

  /**
   * Answers one JSON text (an HTTP body, a stdio line) with the response's JSON text: what a
   * transport carries. Text that is not JSON is -32700 `Parse error`.
   */
  async handle(text: string, options: HandleRequestOptions = {}): Promise<string> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return JSON.stringify(
        invalidMessageResponse({ kind: 'invalid', code: ErrorCode.ParseError, reason: '', id: null }),
      );
    }
    return JSON.stringify(await this.handleRequest(value, options));
  }

  async #dispatch(
    id: RequestId | null,
    method: string,
    params: JsonObject,
    options: HandleRequestOptions,
  ): Promise<JsonObject> {
    // The dispatcher's RequestContext wants an id; an id-less contract request is answered with null.
    const rpc: JsonRpcRequest = { jsonrpc: '2.0', id: id ?? '', method, params };
    try {
      const result = await this.dispatcher.handle(rpc, this.#context(rpc, params, options));
      if (result.resultType === 'input_required') {
        withContractInput(result, (result as Record<symbol, unknown>)[RAW_INPUT_REQUESTS]);
      }
      return contractSuccess(id, result);
    } catch (thrown) {
      const wire = toWireError(thrown, (internal) =>
        this.#logger.error('ContractServer: request failed', { method, ...errorFields(internal) }),
      );
      return { ...errorResponse(id, wire.toJSON()) };
    }
  }

  #context(rpc: JsonRpcRequest, params: JsonObject, options: HandleRequestOptions): RequestContext {
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const capabilities = meta[MetaKey.clientCapabilities];
    const clientInfo = meta[MetaKey.clientInfo];
    const logLevel = meta[MetaKey.logLevel];
    const progressToken = meta.progressToken;
    return {
      peer: options.peer ?? this.#peer,
      era: 'modern',
      protocolVersion: MODERN_VERSION,
      clientCapabilities: isJsonObject(capabilities) ? capabilities : ALL_INPUT_CAPABILITIES,
      clientInfo: isJsonObject(clientInfo) ? clientInfo : undefined,
      requestId: rpc.id,
      signal: options.signal ?? noSignal,
      progressToken: isRequestId(progressToken) ? progressToken : undefined,
      logLevel: isLoggingLevel(logLevel) ? logLevel : undefined,
      notify: options.notify ?? (() => {}),
      sendRequest: undefined,
    };
  }
}
