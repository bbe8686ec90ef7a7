/**
 * Streamable HTTP classification as pure functions: given a POST's headers and parsed body, the
 * era that serves it, or the refusal to answer (the transport maps refusals to statuses).
 */
import {
  type Classified,
  classify,
  invalidMessageResponse,
  type JsonObject,
  JsonRpcErrorCode,
  type JsonRpcErrorResponse,
  type JsonRpcRequest,
  type RequestId,
} from '@agentd/rpc-frame';
import { acceptsMediaType } from './accept.js';
import { classifyRequest, isRefused, type RequestClass } from './classify-request.js';
import { decodeHeaderValue } from './header-value.js';
import type { LifecycleOptions } from './lifecycle-options.js';
import { MCP_NAME_FIELDS } from './mcp-name-fields.js';
import { MetaKey } from './meta-keys.js';
import { type Refusal, refuse } from './refusals.js';
import { requestEra } from './request-era.js';
import { eraOfVersion } from './versions.js';

/** Read access to request headers (lower-case names); the Web `Headers` object satisfies it. */
export interface HeaderReader {
  /** The header's value (repeated headers joined with ", "), or null when absent. */
  get(name: string): string | null;
}

export type HttpPostRoute =
  /**
   * A modern request whose envelope and mirrored headers are valid: the core answers it, given
   * `classified` (so it does not check `_meta` again).
   */
  | {
      readonly kind: 'modern-request';
      readonly request: JsonRpcRequest;
      readonly classified: Extract<RequestClass, { era: 'modern' }>;
    }
  /** A modern notification: accepted (202), nothing to act on. */
  | { readonly kind: 'modern-notification' }
  /**
   * Legacy session traffic. `sessionId` is the header's value; it is absent only for `initialize`,
   * which mints the session.
   */
  | {
      readonly kind: 'legacy';
      readonly frame: Exclude<Classified, { kind: 'invalid' }>;
      readonly sessionId: string | undefined;
    }
  /** Not JSON, or not a JSON-RPC message: answered with this response (400). */
  | { readonly kind: 'invalid'; readonly response: JsonRpcErrorResponse }
  | { readonly kind: 'refuse'; readonly id: RequestId | null; readonly refusal: Refusal };

export interface HttpPostContext {
  /** The endpoint serves legacy sessions (the core speaks a legacy version and the transport allows it). */
  readonly legacy: boolean;
  /** The core's lifecycle options (which versions it speaks). */
  readonly lifecycle?: LifecycleOptions | undefined;
}

const SESSION_HEADER = 'mcp-session-id';

/** Accept (JSON and SSE) and Content-Type of a Streamable HTTP POST, judged before its body is read. */
export function postHeadersRefusal(headers: HeaderReader): Refusal | undefined {
  const accept = headers.get('accept') ?? undefined;
  if (!acceptsMediaType(accept, 'application/json') || !acceptsMediaType(accept, 'text/event-stream')) {
    return refuse.notAcceptable();
  }
  return contentTypeRefusal(headers);
}

/** Content-Type alone: what a POST whose answer is always JSON (a wire profile's) must carry. */
export function contentTypeRefusal(headers: HeaderReader): Refusal | undefined {
  return isJsonContentType(headers.get('content-type')) ? undefined : refuse.unsupportedMediaType();
}

/** A legacy GET stream needs `Accept: text/event-stream`. */
export function streamAcceptRefusal(headers: HeaderReader): Refusal | undefined {
  return acceptsMediaType(headers.get('accept') ?? undefined, 'text/event-stream')
    ? undefined
    : refuse.streamNotAcceptable();
}

function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/**
 * Classifies a POST body (`parsed.ok` false: it was not JSON). Spec classifier rules: a session id
 * means legacy traffic unless the body carries modern `_meta` (then a modern version header
 * alongside a session is that session's version mismatch, not a bare modern POST); otherwise a
 * modern `_meta` or a modern `MCP-Protocol-Version` header makes it modern; never `Mcp-Method` alone.
 */
export function classifyHttpPost(
  parsed: { readonly ok: true; readonly value: unknown } | { readonly ok: false },
  headers: HeaderReader,
  context: HttpPostContext,
): HttpPostRoute {
  if (!parsed.ok) {
    return {
      kind: 'invalid',
      response: invalidMessageResponse({
        kind: 'invalid',
        code: JsonRpcErrorCode.ParseError,
        reason: 'not valid JSON',
        id: null,
      }),
    };
  }
  const frame = classify(parsed.value);
  if (frame.kind === 'invalid') return { kind: 'invalid', response: invalidMessageResponse(frame) };
  const sessionId = headers.get(SESSION_HEADER) ?? undefined;
  const sessionHeld =
    context.legacy && sessionId !== undefined && frame.kind !== 'response'
      ? requestEra(frame.message) === 'legacy'
      : false;
  const modern = frame.kind !== 'response' && !sessionHeld && isModernPost(frame.message, headers);
  if (modern || (frame.kind !== 'request' && !context.legacy)) {
    if (frame.kind === 'response') return { kind: 'refuse', id: null, refusal: refuse.responseNotAllowed() };
    if (frame.kind === 'notification') return { kind: 'modern-notification' };
    return modernRoute(frame.message, headers, context);
  }
  if (!context.legacy) {
    // A modern-only server serves a bare request as the core's modern pipeline does.
    return modernRoute(frame.message as JsonRpcRequest, headers, context);
  }
  const id = frame.kind === 'request' ? frame.message.id : null;
  if (frame.kind === 'request' && frame.message.method === 'initialize') {
    if (sessionId !== undefined) return { kind: 'refuse', id, refusal: refuse.initializeWithSession() };
    return { kind: 'legacy', frame, sessionId: undefined };
  }
  if (sessionId === undefined) return { kind: 'refuse', id, refusal: refuse.sessionRequired() };
  return { kind: 'legacy', frame, sessionId };
}

function isModernPost(message: { params?: unknown }, headers: HeaderReader): boolean {
  if (requestEra(message) === 'modern') return true;
  const header = headers.get('mcp-protocol-version');
  return header !== null && eraOfVersion(header) === 'modern';
}

/**
 * Order matters (the conformance suite checks it): removed methods and missing `_meta` fields
 * first, then header presence/equality (-32020), then version support (-32022); capabilities
 * (-32021) are dispatch's.
 */
function modernRoute(
  request: JsonRpcRequest,
  headers: HeaderReader,
  context: HttpPostContext,
): HttpPostRoute {
  const classified = classifyRequest(request, context.lifecycle, true);
  if (isRefused(classified)) {
    const refusal =
      classified.reason === 'unsupported-version'
        ? (mirroredHeadersRefusal(request, headers) ?? classified)
        : classified;
    return { kind: 'refuse', id: request.id, refusal };
  }
  const refusal = mirroredHeadersRefusal(request, headers);
  if (refusal !== undefined) return { kind: 'refuse', id: request.id, refusal };
  return { kind: 'modern-request', request, classified };
}

/** `MCP-Protocol-Version`, `Mcp-Method` and (where the method has one) `Mcp-Name` must mirror the body. */
function mirroredHeadersRefusal(request: JsonRpcRequest, headers: HeaderReader): Refusal | undefined {
  // classifyRequest passed the shape checks: `_meta` is an object with a string version.
  const meta = request.params?._meta as JsonObject;
  const version = meta[MetaKey.protocolVersion] as string;
  return (
    compareHeader(headers, 'mcp-protocol-version', 'MCP-Protocol-Version', version) ??
    compareHeader(headers, 'mcp-method', 'Mcp-Method', request.method) ??
    nameRefusal(request, headers)
  );
}

function nameRefusal(request: JsonRpcRequest, headers: HeaderReader): Refusal | undefined {
  const field = MCP_NAME_FIELDS[request.method];
  if (field === undefined) return undefined;
  const value = request.params?.[field];
  // A missing or non-string name is a malformed request: the handler answers -32602.
  if (typeof value !== 'string') return undefined;
  return compareHeader(headers, 'mcp-name', 'Mcp-Name', value);
}

function compareHeader(
  headers: HeaderReader,
  key: string,
  label: string,
  expected: string,
): Refusal | undefined {
  const raw = headers.get(key);
  if (raw === null) return refuse.headerMissing(label);
  const decoded = decodeHeaderValue(raw);
  if (decoded === undefined) return refuse.headerInvalid(label);
  if (decoded !== expected) return refuse.headerDiffers(label, decoded, expected);
  return undefined;
}
