/**
 * The stateless tool-server contract's own answers: the one place where `ContractServer` departs from the
 * 2026-07-28 specification the rest of dispatch (and the server core) follows.
 *
 * | situation                                   | contract (`ContractServer`)                       | spec (`Dispatcher` + core)              |
 * |---------------------------------------------|-------------------------------------------------|-----------------------------------------|
 * | not a request (no method, a response, …)    | -32600, the message's id echoed when valid      | -32600, id only when it was a request   |
 * | message without an id (or `id: null`)       | answered, with `id: null`                       | a notification: no answer               |
 * | `initialize`                                | -32601 "removed by the stateless 2026-07-28 …"  | legacy handshake, or -32601 naming eras |
 * | `_meta` version other than 2026-07-28       | -32600 `{supported, requested}`                 | -32022 `{supported, requested}`         |
 * | methods other than tools/list, tools/call   | -32601                                          | resources, prompts, discover, listen …  |
 * | unregistered tool                           | isError result `Tool not found`                 | -32602 `Unknown tool: <name>`           |
 * | missing required argument                   | isError `Missing required argument: <arg>`      | isError `Invalid arguments: …`          |
 * | `InputRequired`                             | also `requests` (any shape) + fixed text        | `inputRequests` + `requestState`        |
 * | handler throws                              | isError `Error: <message>` for every throw      | internal errors hidden                  |
 * | client capabilities                         | every input kind unless `_meta` declares some   | only what `_meta` declares              |
 *
 * The message rules are `contractProfile`, a `WireProfile` of the server core: transports, slots,
 * cancellation and shutdown are the core's. The result rules are `ContractServer`'s handler.
 * Everything else (classification texts, validation, MRTR, result shaping) is the shared code.
 */
import {
  contentTypeRefusal,
  eraOfVersion,
  MetaKey,
  MODERN_VERSION,
  type ModernMeta,
  refuse,
} from '@agentd/lifecycle';
import {
  type Classified,
  classify,
  errorResponse,
  invalidMessageResponse,
  isJsonObject,
  isLogLevel,
  isRequestId,
  type JsonObject,
  JsonRpcErrorCode,
  type JsonRpcErrorResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '@agentd/rpc-frame';
import type { Admission, WireProfile } from '@agentd/server';
import type { ArgumentIssue } from './schema-compiler.js';
import { ToolResult } from './tool-result.js';

/** The only methods the contract serves. */
const CONTRACT_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/call']);

export const INPUT_REQUIRED_TEXT = 'Additional client input is required before this tool can finish.';

/** The contract answers with the message's own id whenever it is a usable one. */
function contractId(message: unknown): RequestId | null {
  return isJsonObject(message) && isRequestId(message.id) ? message.id : null;
}

/** `id: null` reads as "no id" (the contract answers both), so the classifier does not refuse it. */
function withoutNullId(message: unknown): unknown {
  if (!isJsonObject(message) || message.id !== null) return message;
  const { id: _null, ...rest } = message;
  return rest;
}

/** The classifier's -32600, with the contract's id rule. */
type InvalidMessage = Extract<Classified, { kind: 'invalid' }>;

function invalidRequest(message: unknown, verdict: InvalidMessage): JsonRpcErrorResponse {
  return invalidMessageResponse({ ...verdict, id: contractId(message) ?? verdict.id });
}

/** A parsed JSON value that is a response rather than a request: to the contract, a request without a method. */
function notARequest(message: unknown): JsonRpcErrorResponse {
  return invalidRequest(message, {
    kind: 'invalid',
    code: JsonRpcErrorCode.InvalidRequest,
    reason: 'a request needs a method',
    id: null,
  });
}

function initializeRemoved(id: RequestId | null): JsonRpcErrorResponse {
  return errorResponse(id, {
    code: JsonRpcErrorCode.MethodNotFound,
    message: `Method not found: initialize was removed by the stateless ${MODERN_VERSION} specification; there is no handshake, call tools/list or tools/call directly`,
  });
}

/** The version a request declares: bare `protocolVersion` (the contract) or the reserved key, at the top or in params. */
function declaredVersion(message: JsonObject): unknown {
  const params = message.params;
  return versionIn(message._meta) ?? versionIn(isJsonObject(params) ? params._meta : undefined);
}

function versionIn(meta: unknown): unknown {
  if (!isJsonObject(meta)) return undefined;
  return meta.protocolVersion ?? meta[MetaKey.protocolVersion];
}

function versionRefused(id: RequestId | null, requested: unknown): JsonRpcErrorResponse {
  return errorResponse(id, {
    code: JsonRpcErrorCode.InvalidRequest,
    message: `Invalid Request: unsupported protocol version ${JSON.stringify(requested)}; this server speaks ${MODERN_VERSION}`,
    data: { supported: [MODERN_VERSION], requested },
  });
}

export function toolNotFound(): JsonObject {
  return { isError: true, content: [{ type: 'text', text: 'Tool not found' }] };
}

/** The isError text for arguments that fail the schema: the contract's wording for a missing top-level one. */
export function invalidArgumentsText(issues: readonly ArgumentIssue[]): string {
  const missing = issues.find((issue) => issue.rule === 'required' && !issue.argument.includes('.'));
  return missing
    ? `Missing required argument: ${missing.argument}`
    : `Invalid arguments: ${issues[0]?.message ?? ''}`;
}

/** Adds the contract's `requests` (the handler's own value) and fixed text to an input_required result. */
export function withContractInput(result: JsonObject, rawRequests: unknown): JsonObject {
  result.requests = rawRequests ?? result.inputRequests ?? {};
  result.content = [{ type: 'text', text: INPUT_REQUIRED_TEXT }];
  return result;
}

/** Any handler throw but InputRequired: `Error: <message>`, as the contract asks (so the message is the client's to read). */
export function handlerFailed(thrown: unknown): ToolResult {
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new ToolResult({ content: [{ type: 'text', text: `Error: ${message}` }], isError: true });
}

/** Without declared capabilities the contract's client is assumed to answer every kind of input request. */
const ALL_INPUT_CAPABILITIES: JsonObject = Object.freeze({ elicitation: {}, sampling: {}, roots: {} });

/** The contract's requests run in the modern era, with what their `_meta` declares (leniently: bad fields are ignored). */
function contractMeta(request: JsonRpcRequest): ModernMeta {
  const meta = isJsonObject(request.params?._meta) ? request.params._meta : {};
  const capabilities = meta[MetaKey.clientCapabilities];
  const clientInfo = meta[MetaKey.clientInfo];
  const logLevel = meta[MetaKey.logLevel];
  const progressToken = meta.progressToken;
  const checked: ModernMeta = {
    protocolVersion: MODERN_VERSION,
    clientCapabilities: isJsonObject(capabilities) ? capabilities : ALL_INPUT_CAPABILITIES,
  };
  if (isJsonObject(clientInfo)) checked.clientInfo = clientInfo;
  if (isLogLevel(logLevel)) checked.logLevel = logLevel;
  if (isRequestId(progressToken)) checked.progressToken = progressToken;
  return checked;
}

const answer = (response: JsonRpcResponse): Admission => ({ kind: 'answer', response });

/**
 * The contract's message rules as a core profile: every message is answered, id-less ones with
 * `id: null`; only tools/list and tools/call run, in the modern era.
 */
export function contractProfile(): WireProfile {
  /** Id-less requests run under ids no client sends (a NUL prefix), so concurrent ones never collide. */
  let idless = 0;
  return {
    // Every answer is JSON: a POST needs JSON content, whatever its Accept says.
    postHeadersRefusal: contentTypeRefusal,
    admit(frame: Classified): Admission {
      let message: Exclude<Classified, InvalidMessage> = frame as Exclude<Classified, InvalidMessage>;
      if (frame.kind === 'invalid') {
        if (frame.code === JsonRpcErrorCode.ParseError) return answer(invalidMessageResponse(frame));
        // `id: null` is no id to the contract: read the value again without it.
        const again = classify(withoutNullId(frame.value));
        if (again.kind === 'invalid') return answer(invalidRequest(frame.value, again));
        message = again;
      }
      if (message.kind === 'response') return answer(notARequest(message.message));
      const request = message.message;
      const id = message.kind === 'request' ? message.message.id : null;
      if (request.method === 'initialize') return answer(initializeRemoved(id));
      const requested = declaredVersion(request as unknown as JsonObject);
      // The contract serves the modern era only; which versions belong to it is lifecycle's to say.
      if (requested !== undefined && (typeof requested !== 'string' || eraOfVersion(requested) !== 'modern'))
        return answer(versionRefused(id, requested));
      if (!CONTRACT_METHODS.has(request.method)) {
        return answer(errorResponse(id, refuse.methodNotFound(request.method).toJSON()));
      }
      const run: JsonRpcRequest =
        message.kind === 'request' ? message.message : { ...request, id: `\u0000idless-${++idless}` };
      return {
        kind: 'run',
        request: run,
        classified: { era: 'modern', meta: contractMeta(run) },
        answerId: id,
      };
    },
  };
}
