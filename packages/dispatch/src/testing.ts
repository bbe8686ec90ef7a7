/**
 * `@agentd/dispatch/testing`: an in-memory client for unit tests. It drives a Dispatcher (or any
 * Handler) through the real server core, in either era, with no sockets or processes.
 */
import { LEGACY_VERSIONS, MetaKey, MODERN_VERSION, refuse } from '@agentd/lifecycle';
import {
  classify,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type LogLevel,
  WireError,
} from '@agentd/rpc-frame';
import {
  type CoreConnection,
  createServerCore,
  type Era,
  type Handler,
  type Implementation,
  type Peer,
  type ServerCore,
  silentLogger,
} from '@agentd/server';
import { dispatchError } from './local-errors.js';

/** Answers a server-to-client request: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export type TestInputHandler = (method: string, params: JsonObject) => JsonObject | Promise<JsonObject>;

export interface TestClientOptions {
  /** `modern` (2026-07-28, per-request `_meta`) or `legacy` (`initialize` handshake, 2025-11-25). Default modern. */
  era?: Era;
  /** The peer the handler sees (`ctx.peer`); default a management peer on transport `memory`. */
  peer?: Partial<Peer>;
  /** Declared client capabilities, e.g. `{elicitation: {}}`. Default none. */
  capabilities?: JsonObject;
  clientInfo?: Implementation;
  /** Log level asked for (legacy: `logging/setLevel` after the handshake; modern: in each request's `_meta`). */
  logLevel?: LogLevel;
  /**
   * Answers client input in both eras: legacy server-to-client requests, and the modern
   * `input_required` rounds of `callTool`/`getPrompt`/`readResource`. Without it they fail.
   */
  onInputRequest?: TestInputHandler;
  serverInfo?: Implementation;
}

export interface TestRequestOptions {
  /** Sets `_meta.progressToken`: progress notifications land in `client.notifications`. */
  progressToken?: string | number;
  /** Aborts the request (as a closed HTTP stream would). */
  signal?: AbortSignal;
}

export interface TestClient {
  readonly era: Era;
  readonly core: ServerCore;
  readonly connection: CoreConnection;
  /** Every notification the server sent this client (progress, log messages, list changes). */
  readonly notifications: JsonRpcNotification[];
  /** Legacy: the `initialize` result. Modern: undefined. */
  readonly initializeResult: JsonObject | undefined;
  /** One request; resolves to its result or rejects with a `WireError` carrying the JSON-RPC error. */
  request(method: string, params?: JsonObject, options?: TestRequestOptions): Promise<JsonObject>;
  /** Every tool, following `nextCursor` to the end. */
  listTools(): Promise<JsonObject[]>;
  /** `tools/call`; modern `input_required` rounds are answered with `onInputRequest` and retried. */
  callTool(name: string, args?: JsonObject, options?: TestRequestOptions): Promise<JsonObject>;
  getPrompt(name: string, args?: Record<string, string>, options?: TestRequestOptions): Promise<JsonObject>;
  readResource(uri: string, options?: TestRequestOptions): Promise<JsonObject>;
  /** Closes the connection and the core. */
  close(): Promise<void>;
}

const MAX_INPUT_ROUNDS = 16;

/**
 * Connects an in-memory client to `target` (a Dispatcher or any Handler, or an McpServer: its
 * dispatcher) through `createServerCore`. In the legacy era the `initialize` handshake has run
 * when the promise resolves.
 */
export async function createTestClient(
  target: Handler | { readonly dispatcher: Handler },
  options: TestClientOptions = {},
): Promise<TestClient> {
  const handler = 'handle' in target ? target : target.dispatcher;
  const era = options.era ?? 'modern';
  const capabilities = options.capabilities ?? {};
  const clientInfo = options.clientInfo ?? { name: 'agentd-test-client', version: '0.0.0' };
  const core = createServerCore({
    handler,
    serverInfo: options.serverInfo ?? { name: 'agentd-test-server', version: '0.0.0' },
    logger: silentLogger,
  });
  const notifications: JsonRpcNotification[] = [];
  let nextId = 1;
  let writerClosed = false;
  // Filled right below; the writer needs it to answer legacy server-to-client requests.
  let connection: CoreConnection | undefined;

  const answerServerRequest = async (message: JsonObject): Promise<void> => {
    const id = message.id as string | number;
    const params = (message.params ?? {}) as JsonObject;
    let reply: JsonObject;
    try {
      if (!options.onInputRequest)
        throw refuse.methodNotFound(String(message.method), 'the test client has no onInputRequest');
      reply = { jsonrpc: '2.0', id, result: await options.onInputRequest(String(message.method), params) };
    } catch (error) {
      const code = error instanceof WireError ? error.code : -32603;
      reply = { jsonrpc: '2.0', id, error: { code, message: (error as Error).message } };
    }
    await connection?.handle(classify(reply));
  };

  const writer = {
    id: `memory-${Math.random().toString(36).slice(2)}`,
    get closed() {
      return writerClosed;
    },
    write(message: JsonRpcMessage): boolean {
      if (writerClosed) return false;
      const m = message as unknown as JsonObject;
      if (typeof m.method === 'string' && m.id !== undefined) void answerServerRequest(m);
      else if (typeof m.method === 'string') notifications.push(message as JsonRpcNotification);
      return true;
    },
    close(): void {
      writerClosed = true;
    },
  };
  const peer: Peer = {
    origin: 'management',
    connectionId: writer.id,
    transport: 'memory',
    attributes: {},
    ...options.peer,
  };
  const open = core.openConnection(peer, writer);
  connection = open;

  const send = async (method: string, params: JsonObject | undefined, request?: TestRequestOptions) => {
    let full = params;
    if (era === 'modern' || request?.progressToken !== undefined) {
      const meta: JsonObject = { ...((params?._meta as JsonObject | undefined) ?? {}) };
      if (era === 'modern') {
        meta[MetaKey.protocolVersion] = MODERN_VERSION;
        meta[MetaKey.clientCapabilities] = capabilities;
        meta[MetaKey.clientInfo] = clientInfo;
        if (options.logLevel !== undefined) meta[MetaKey.logLevel] = options.logLevel;
      }
      if (request?.progressToken !== undefined) meta.progressToken = request.progressToken;
      full = { ...params, _meta: meta };
    }
    const id = nextId++;
    const message =
      full === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: full };
    const response = await open.handle(
      classify(message),
      request?.signal === undefined ? undefined : { signal: request.signal },
    );
    return unwrap(method, response);
  };

  /** Modern MRTR: answer each `input_required` round and retry with the echoed `requestState`. */
  const withInput = async (method: string, params: JsonObject, request?: TestRequestOptions) => {
    let current = params;
    for (let round = 0; round < MAX_INPUT_ROUNDS; round += 1) {
      const result = await send(method, current, request);
      if (result.resultType !== 'input_required') return result;
      if (!options.onInputRequest)
        throw dispatchError(
          'client_input_unavailable',
          `${method} needs client input: pass onInputRequest to createTestClient`,
        );
      const asked = (result.inputRequests ?? {}) as Record<string, { method: string; params?: JsonObject }>;
      const answers: JsonObject = { ...((current.inputResponses as JsonObject | undefined) ?? {}) };
      for (const [key, ask] of Object.entries(asked))
        answers[key] = await options.onInputRequest(ask.method, ask.params ?? {});
      current = { ...params, inputResponses: answers };
      if (typeof result.requestState === 'string') current.requestState = result.requestState;
    }
    throw dispatchError(
      'client_input_unavailable',
      `${method} still asked for input after ${MAX_INPUT_ROUNDS} rounds`,
    );
  };

  let initializeResult: JsonObject | undefined;
  if (era === 'legacy') {
    initializeResult = await send('initialize', {
      protocolVersion: LEGACY_VERSIONS[0] as string,
      capabilities,
      clientInfo,
    });
    await open.handle(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    if (options.logLevel !== undefined) await send('logging/setLevel', { level: options.logLevel });
  }

  return {
    era,
    core,
    connection: open,
    notifications,
    initializeResult,
    request: (method, params, request) => send(method, params, request),
    async listTools() {
      const tools: JsonObject[] = [];
      let cursor: unknown;
      do {
        const page = await send('tools/list', cursor === undefined ? {} : { cursor });
        tools.push(...((page.tools ?? []) as JsonObject[]));
        cursor = page.nextCursor;
      } while (typeof cursor === 'string');
      return tools;
    },
    callTool: (name, args = {}, request) => withInput('tools/call', { name, arguments: args }, request),
    getPrompt: (name, args = {}, request) => withInput('prompts/get', { name, arguments: args }, request),
    readResource: (uri, request) => withInput('resources/read', { uri }, request),
    async close() {
      open.close();
      await core.close();
    },
  };
}

function unwrap(method: string, response: JsonRpcResponse | undefined): JsonObject {
  if (response === undefined)
    throw dispatchError('no_response', `${method} got no response (cancelled or aborted)`);
  if ('error' in response && response.error !== undefined) throw WireError.from(response.error);
  return (response as { result: JsonObject }).result;
}
