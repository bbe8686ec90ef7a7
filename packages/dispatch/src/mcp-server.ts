/** McpServer: the seed-002 stateless tool-server contract, as a thin face over a Dispatcher. */

import { LOGGING_LEVELS } from '@agentd/lifecycle';
import {
  ErrorCode,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
  WireError,
} from '@agentd/rpc-frame';
import type { LoggingLevel, Peer, RequestContext } from '@agentd/server';
import { RAW_INPUT_REQUESTS } from './client-input-round.js';
import type { DispatchLogger } from './dispatch-env.js';
import { Dispatcher } from './dispatcher.js';
import { InputRequired } from './input-required.js';
import { isJsonObject } from './json.js';
import { ToolResult } from './tool-result.js';

export const MCP_SERVER_PROTOCOL_VERSION = '2026-07-28';

export const INPUT_REQUIRED_TEXT = 'Additional client input is required before this tool can finish.';

/** `handler(arguments, inputResponses)`; may be async; throw `InputRequired` to ask the client for input. */
/** `inputResponses` is undefined when the call carried none, as in the seed contract. */
export type McpToolHandler = (
  args: Record<string, unknown>,
  inputResponses: JsonObject | undefined,
) => unknown;

export interface McpServerOptions {
  logger?: DispatchLogger;
  /** HMAC key / lifetime of the `requestState` attached to input_required results. */
  requestState?: { key?: string | Uint8Array; ttlMs?: number };
  /** Who requests come from (default: an in-process management peer). */
  peer?: Peer;
}

export interface HandleRequestOptions {
  /** Aborts the tool's handler context (e.g. the HTTP client went away). */
  signal?: AbortSignal;
  /** Receives request-scoped notifications (progress, log messages). */
  notify?: (notification: JsonRpcNotification) => void;
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

export class McpServer {
  /** The dispatcher behind this face; serve it through `@agentd/server` to reach the same tools over a transport. */
  readonly dispatcher: Dispatcher;
  readonly #peer: Peer;

  constructor(options: McpServerOptions = {}) {
    this.dispatcher = new Dispatcher({
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.requestState ? { requestState: options.requestState } : {}),
      schemaScheme: false,
      formatInvalidArguments: (issues) => {
        const missing = issues.find((issue) => issue.rule === 'required' && !issue.argument.includes('.'));
        return missing
          ? `Missing required argument: ${missing.argument}`
          : `Invalid arguments: ${issues[0]?.message ?? ''}`;
      },
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
        } catch (error) {
          if (error instanceof InputRequired) throw error;
          const message = error instanceof Error ? error.message : String(error);
          return new ToolResult({ content: [{ type: 'text', text: `Error: ${message}` }], isError: true });
        }
      },
    });
  }

  /** Answers one JSON-RPC request object; always resolves to a response object. */
  async handleRequest(request: unknown, options: HandleRequestOptions = {}): Promise<JsonObject> {
    if (!isJsonObject(request)) return failure(null, ErrorCode.InvalidRequest, 'Invalid Request');
    const id = request.id;
    if (id !== undefined && id !== null && typeof id !== 'string' && !Number.isSafeInteger(id)) {
      return failure(null, ErrorCode.InvalidRequest, 'Invalid Request: id must be a string or an integer');
    }
    const replyId = (id ?? null) as RequestId | null;
    if (request.jsonrpc !== '2.0')
      return failure(replyId, ErrorCode.InvalidRequest, 'Invalid Request: jsonrpc must be "2.0"');
    if (typeof request.method !== 'string' || request.method === '') {
      return failure(replyId, ErrorCode.InvalidRequest, 'Invalid Request: missing method');
    }
    const method = request.method;
    if (method === 'initialize') {
      return failure(
        replyId,
        ErrorCode.MethodNotFound,
        'Method not found: initialize was removed by the stateless 2026-07-28 specification',
      );
    }
    const params = request.params;
    const requested =
      declaredVersion(request._meta) ?? declaredVersion(isJsonObject(params) ? params._meta : undefined);
    if (requested !== undefined && requested !== MCP_SERVER_PROTOCOL_VERSION) {
      return failure(
        replyId,
        ErrorCode.InvalidRequest,
        `Invalid Request: unsupported protocol version ${JSON.stringify(requested)}; this server speaks ${MCP_SERVER_PROTOCOL_VERSION}`,
        { supported: [MCP_SERVER_PROTOCOL_VERSION], requested },
      );
    }
    if (method !== 'tools/list' && method !== 'tools/call') {
      return failure(replyId, ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 128)}`);
    }
    if (params !== undefined && !isJsonObject(params)) {
      return failure(replyId, ErrorCode.InvalidParams, 'Invalid params: params must be an object');
    }
    const callParams: JsonObject = { ...params };
    if (method === 'tools/call') {
      if (typeof callParams.name !== 'string')
        return failure(replyId, ErrorCode.InvalidParams, 'Invalid params: missing tool name');
      if (!this.dispatcher.hasTool(callParams.name)) {
        return success(replyId, { isError: true, content: [{ type: 'text', text: 'Tool not found' }] });
      }
      if (callParams.arguments === null) delete callParams.arguments;
      if (!isJsonObject(callParams.inputResponses)) delete callParams.inputResponses;
    }
    return this.#dispatch(replyId, method, callParams, options);
  }

  async #dispatch(
    id: RequestId | null,
    method: string,
    params: JsonObject,
    options: HandleRequestOptions,
  ): Promise<JsonObject> {
    const rpc: JsonRpcRequest = { jsonrpc: '2.0', id: id ?? '', method, params };
    try {
      const result = await this.dispatcher.handle(rpc, this.#context(rpc, params, options));
      if (result.resultType === 'input_required') {
        const raw = (result as Record<symbol, unknown>)[RAW_INPUT_REQUESTS];
        result.requests = raw ?? result.inputRequests ?? {};
        result.content = [{ type: 'text', text: INPUT_REQUIRED_TEXT }];
      }
      return success(id, result);
    } catch (error) {
      if (error instanceof WireError) return failure(id, error.code, error.message, error.data);
      return failure(id, ErrorCode.InternalError, 'Internal error');
    }
  }

  #context(rpc: JsonRpcRequest, params: JsonObject, options: HandleRequestOptions): RequestContext {
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const capabilities = meta['io.modelcontextprotocol/clientCapabilities'];
    const clientInfo = meta['io.modelcontextprotocol/clientInfo'];
    const logLevel = meta['io.modelcontextprotocol/logLevel'];
    const progressToken = meta.progressToken;
    return {
      peer: this.#peer,
      era: 'modern',
      protocolVersion: MCP_SERVER_PROTOCOL_VERSION,
      clientCapabilities: isJsonObject(capabilities) ? capabilities : ALL_INPUT_CAPABILITIES,
      clientInfo: isJsonObject(clientInfo) ? clientInfo : undefined,
      requestId: rpc.id,
      signal: options.signal ?? noSignal,
      progressToken:
        typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
      logLevel: LOGGING_LEVELS.includes(logLevel as LoggingLevel) ? (logLevel as LoggingLevel) : undefined,
      notify: options.notify ?? (() => {}),
      sendRequest: undefined,
    };
  }
}

function declaredVersion(meta: unknown): unknown {
  if (!isJsonObject(meta)) return undefined;
  return meta.protocolVersion ?? meta['io.modelcontextprotocol/protocolVersion'];
}

function success(id: RequestId | null, result: JsonObject): JsonObject {
  return { jsonrpc: '2.0', id, result };
}

function failure(id: RequestId | null, code: number, message: string, data?: unknown): JsonObject {
  const error: JsonObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}
