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
 * Everything else (classification texts, validation, MRTR, result shaping) is the shared code.
 */
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import {
  ErrorCode,
  errorResponse,
  type InvalidMessage,
  invalidMessageResponse,
  isJsonObject,
  isRequestId,
  type JsonObject,
  type JsonRpcErrorResponse,
  type RequestId,
  successResponse,
} from '@agentd/rpc-frame';
import type { ArgumentIssue } from './schema-compiler.js';
import { ToolResult } from './tool-result.js';

/** The only methods the contract serves. */
export const CONTRACT_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/call']);

export const INPUT_REQUIRED_TEXT = 'Additional client input is required before this tool can finish.';

/** The contract answers with the message's own id whenever it is a usable one. */
function contractId(message: unknown): RequestId | null {
  return isJsonObject(message) && isRequestId(message.id) ? message.id : null;
}

/** `id: null` reads as "no id" (the contract answers both), so the classifier does not refuse it. */
export function withoutNullId(message: unknown): unknown {
  if (!isJsonObject(message) || message.id !== null) return message;
  const { id: _null, ...rest } = message;
  return rest;
}

/** The classifier's -32600, with the contract's id rule. */
export function invalidRequest(message: unknown, verdict: InvalidMessage): JsonRpcErrorResponse {
  return invalidMessageResponse({ ...verdict, id: contractId(message) ?? verdict.id });
}

/** A parsed JSON value that is a response rather than a request: to the contract, a request without a method. */
export function notARequest(message: unknown): JsonRpcErrorResponse {
  return invalidRequest(message, {
    kind: 'invalid',
    code: ErrorCode.InvalidRequest,
    reason: 'a request needs a method',
    id: null,
  });
}

export function initializeRemoved(id: RequestId | null): JsonRpcErrorResponse {
  return errorResponse(id, {
    code: ErrorCode.MethodNotFound,
    message: `Method not found: initialize was removed by the stateless ${MODERN_VERSION} specification; there is no handshake, call tools/list or tools/call directly`,
  });
}

/** The version a request declares: bare `protocolVersion` (the contract) or the reserved key, at the top or in params. */
export function declaredVersion(message: JsonObject): unknown {
  const params = message.params;
  return versionIn(message._meta) ?? versionIn(isJsonObject(params) ? params._meta : undefined);
}

function versionIn(meta: unknown): unknown {
  if (!isJsonObject(meta)) return undefined;
  return meta.protocolVersion ?? meta[MetaKey.protocolVersion];
}

export function versionRefused(id: RequestId | null, requested: unknown): JsonRpcErrorResponse {
  return errorResponse(id, {
    code: ErrorCode.InvalidRequest,
    message: `Invalid Request: unsupported protocol version ${JSON.stringify(requested)}; this server speaks ${MODERN_VERSION}`,
    data: { supported: [MODERN_VERSION], requested },
  });
}

/** Success with the contract's id rule: a request without an id still gets its answer (`id: null`). */
export function contractSuccess(id: RequestId | null, result: JsonObject): JsonObject {
  return id === null ? { jsonrpc: '2.0', id: null, result } : { ...successResponse(id, result) };
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
