/** ContractServer: the stateless tool-server contract of examples/mcp-server, as a thin profile over a Dispatcher. */

import { MODERN_VERSION, refuse } from '@agentd/lifecycle';
import {
  classify,
  errorFields,
  errorResponse,
  invalidMessageResponse,
  isJsonObject,
  type JsonObject,
  JsonRpcErrorCode,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type Logger,
  stderrLogger,
} from '@agentd/rpc-frame';
import {
  createServerCore,
  type Handler,
  type Implementation,
  type Peer,
  type RequestContext,
  type ServerCore,
  type ServerCoreOptions,
} from '@agentd/server';
import { RAW_INPUT_REQUESTS } from './client-input-round.js';
import { Dispatcher } from './dispatcher.js';
import { InputRequired } from './input-required.js';
import {
  contractProfile,
  handlerFailed,
  invalidArgumentsText,
  toolNotFound,
  withContractInput,
} from './mcp-contract.js';
import { ServedDispatcher } from './served-dispatcher.js';

/** `handler(arguments, inputResponses)`; may be async; throw `InputRequired` to ask the client for input. */
/** `inputResponses` is undefined when the call carried none, as in the seed contract. */
export type McpToolHandler = (
  args: Record<string, unknown>,
  inputResponses: JsonObject | undefined,
) => unknown;

export interface ContractServerOptions {
  /**
   * Internal errors (a failing dispatcher, never a tool's own throw, which the contract answers
   * as `Error: <message>`) and debug records of tool throws. Default: `stderrLogger()`, JSON
   * lines on stderr at `info` and up (stdout stays protocol-only on stdio).
   */
  logger?: Logger;
  /** HMAC key / lifetime of the `requestState` attached to input_required results. */
  requestState?: { key?: string | Uint8Array; ttlMs?: number };
  /** Who requests come from when `handleRequest` names no peer (default: an in-process management peer). */
  peer?: Peer;
  /** What results name as their server (`_meta`). Default `{ name: 'mcp-server', version: '0.0.0' }`. */
  serverInfo?: Implementation;
  /** The server core's limits (in-flight requests per connection, input budget, …). */
  core?: Omit<ServerCoreOptions, 'handler' | 'serverInfo' | 'logger' | 'lifecycle' | 'profile'>;
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

/** An in-process request's connection: the response is the answer, request-scoped messages go to `notify`. */
type PushWriter = Parameters<ServerCore['openConnection']>[1];

function notifyWriter(id: string, notify: ((message: JsonRpcNotification) => void) | undefined): PushWriter {
  let closed = false;
  return {
    id,
    get closed() {
      return closed;
    },
    write(message: JsonRpcMessage) {
      if (closed || notify === undefined || !('method' in message) || 'id' in message) return false;
      notify(message as JsonRpcNotification);
      return true;
    },
    close() {
      closed = true;
    },
  };
}

/**
 * The stateless tool-server contract on the server core: the core runs it with the contract's
 * message rules (`contractProfile`), so every transport serves it as it serves any MCP server.
 */
export class ContractServer extends ServedDispatcher {
  readonly #peer: Peer;
  readonly #logger: Logger;

  constructor(options: ContractServerOptions = {}) {
    const logger = options.logger ?? stderrLogger();
    const dispatcher = new Dispatcher({
      logger,
      ...(options.requestState ? { requestState: options.requestState } : {}),
      schemaScheme: false,
      formatInvalidArguments: invalidArgumentsText,
    });
    super(
      dispatcher,
      createServerCore({
        ...options.core,
        handler: contractHandler(dispatcher),
        serverInfo: options.serverInfo ?? { name: 'mcp-server', version: '0.0.0' },
        lifecycle: { versions: [MODERN_VERSION] },
        logger,
        profile: contractProfile(),
      }),
    );
    this.#logger = logger;
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

  /**
   * Answers one JSON-RPC request object in process, through the same core a transport uses;
   * always resolves to a response object (a request whose `signal` aborts gets -32000).
   */
  async handleRequest(request: unknown, options: HandleRequestOptions = {}): Promise<JsonObject> {
    const peer = options.peer ?? this.#peer;
    const connectionId = this.core.mintConnectionId(peer.transport);
    const connection = this.core.openConnection(
      { ...peer, connectionId },
      notifyWriter(connectionId, options.notify),
    );
    // The caller giving up closes the request's connection: the request is aborted and told -32000.
    const onAbort = (): void => connection.close({ graceful: true });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted === true) onAbort();
    try {
      const response = await connection.handle(classify(request));
      return (response ?? errorResponse(null, refuse.connectionClosing().toJSON())) as unknown as JsonObject;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      connection.close();
    }
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
        invalidMessageResponse({ kind: 'invalid', code: JsonRpcErrorCode.ParseError, reason: '', id: null }),
      );
    }
    return JSON.stringify(await this.handleRequest(value, options));
  }
}

/** The contract's result rules around the dispatcher: what the core's handler seam runs. */
function contractHandler(dispatcher: Dispatcher): Handler {
  return {
    capabilities: () => dispatcher.capabilities(),
    async handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject> {
      if (request.method !== 'tools/call') return dispatcher.handle(request, context);
      const params: JsonObject = { ...request.params };
      if (typeof params.name === 'string' && !dispatcher.hasTool(params.name)) return toolNotFound();
      // Contract leniency: `arguments: null` means none, and answers that are not an object are ignored.
      if (params.arguments === null) delete params.arguments;
      if (!isJsonObject(params.inputResponses)) delete params.inputResponses;
      const result = await dispatcher.handle({ ...request, params }, context);
      if (result.resultType === 'input_required') {
        withContractInput(result, (result as Record<symbol, unknown>)[RAW_INPUT_REQUESTS]);
      }
      return result;
    },
  };
}
