/** The per-request pipeline: Host/Origin, CORS preflight, auth, method, then the era's handler. */
import { requestEra } from '@agentd/lifecycle';
import { classify, invalidMessageResponse } from '@agentd/rpc-frame';
import { acceptsMediaType } from './accept.js';
import type { AuthGate } from './auth-gate.js';
import type { Principal } from './bearer-auth.js';
import { isModernPost } from './era.js';
import { type HostPolicy, isAllowedHost, isAllowedOrigin } from './host-origin.js';
import { BodyTooLarge, type HttpIncoming, type HttpOutgoing } from './http-io.js';
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost } from './legacy-exchange.js';
import { acceptModernMessage, serveModernRequest } from './modern-exchange.js';
import { isMetadataPath, metadataDocument, resourceOf } from './protected-resource.js';
import { sendEmpty, sendJson, sendRpcError } from './replies.js';
import type { Caller, TransportContext } from './transport-context.js';

const ALLOW = 'GET, POST, DELETE';
const CORS_ALLOW_HEADERS =
  'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id';

/** The path part of a request target (no query string). */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** True for the paths an endpoint answers: its own, and the OAuth metadata paths when OAuth is on. */
export function ownsPath(context: TransportContext, gate: AuthGate | undefined, path: string): boolean {
  return (
    path === context.options.path || (gate?.oauth !== undefined && isMetadataPath(path, context.options.path))
  );
}

function corsFor(origin: string | undefined, policy: HostPolicy): Record<string, string> | undefined {
  if (origin === undefined || !policy.origins.has(origin.toLowerCase().replace(/\/+$/, ''))) return undefined;
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'mcp-session-id',
  };
}

/** Serves one request on an owned path (see `ownsPath`); never rejects (internal errors answer 500). */
export async function routeRequest(
  context: TransportContext,
  policy: HostPolicy,
  gate: AuthGate | undefined,
  incoming: HttpIncoming,
  out: HttpOutgoing,
): Promise<void> {
  try {
    await route(context, policy, gate, incoming, out);
  } catch {
    failed(out);
  }
}

async function route(
  context: TransportContext,
  policy: HostPolicy,
  gate: AuthGate | undefined,
  incoming: HttpIncoming,
  out: HttpOutgoing,
): Promise<void> {
  const headers = incoming.headers;
  const origin = headers.get('origin') ?? undefined;
  if (!isAllowedHost(headers.get('host') ?? undefined, policy) || !isAllowedOrigin(origin, policy)) {
    sendRpcError(out, 403, null, { code: -32600, message: 'Forbidden: Host or Origin not allowed' });
    return;
  }
  const corsHeaders = corsFor(origin, policy);
  if (incoming.method === 'OPTIONS' && corsHeaders !== undefined) {
    sendEmpty(out, 204, {
      ...corsHeaders,
      'access-control-allow-methods': ALLOW,
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    return;
  }
  if (incoming.path !== context.options.path) {
    serveMetadata(context, gate, incoming, out, corsHeaders);
    return;
  }
  let principal: Principal | undefined;
  if (gate !== undefined) {
    const outcome = await gate.check(incoming, context.options.path);
    if (outcome.kind === 'refused') {
      const extra: Record<string, string> = { ...corsHeaders };
      if (outcome.challenge !== undefined) extra['www-authenticate'] = outcome.challenge;
      if (outcome.status === 503) extra['retry-after'] = '5';
      sendRpcError(out, outcome.status, null, { code: -32600, message: outcome.message }, extra);
      return;
    }
    principal = outcome.principal;
  }
  if (context.closing) {
    sendRpcError(
      out,
      503,
      null,
      { code: -32603, message: 'Server is shutting down' },
      { ...corsHeaders, connection: 'close' },
    );
    return;
  }
  const caller: Caller = { headers, out, remoteAddress: incoming.remoteAddress, principal, corsHeaders };
  switch (incoming.method) {
    case 'POST':
      await servePost(context, caller, incoming);
      return;
    case 'GET':
    case 'DELETE':
      serveSessionMethod(context, caller, incoming.method);
      return;
    default:
      sendEmpty(out, 405, { ...corsHeaders, allow: ALLOW });
  }
}

/** RFC 9728 metadata (public: clients read it before they have a token). */
function serveMetadata(
  context: TransportContext,
  gate: AuthGate | undefined,
  incoming: HttpIncoming,
  out: HttpOutgoing,
  corsHeaders: Record<string, string> | undefined,
): void {
  const oauth = gate?.oauth;
  if (oauth === undefined) {
    sendJson(out, 404, { error: 'not found' }, corsHeaders);
    return;
  }
  if (incoming.method !== 'GET' && incoming.method !== 'HEAD') {
    sendEmpty(out, 405, { ...corsHeaders, allow: 'GET' });
    return;
  }
  const resource = resourceOf(oauth, incoming.url(), context.options.path);
  sendJson(out, 200, metadataDocument(oauth, resource), {
    ...corsHeaders,
    'cache-control': 'max-age=3600',
  });
}

/** GET/DELETE exist only for legacy sessions; without one (or legacy off) they are 405. */
function serveSessionMethod(context: TransportContext, caller: Caller, method: 'GET' | 'DELETE'): void {
  const res = caller.out;
  if (!context.options.legacy || caller.headers.get('mcp-session-id') === null) {
    sendEmpty(res, 405, { ...caller.corsHeaders, allow: context.options.legacy ? ALLOW : 'POST' });
    return;
  }
  if (method === 'DELETE') {
    serveLegacyDelete(context, caller);
    return;
  }
  if (!acceptsMediaType(caller.headers.get('accept') ?? undefined, 'text/event-stream')) {
    sendRpcError(
      res,
      406,
      null,
      { code: -32600, message: 'Not Acceptable: GET needs Accept: text/event-stream' },
      caller.corsHeaders,
    );
    return;
  }
  serveLegacyGet(context, caller);
}

function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

async function servePost(context: TransportContext, caller: Caller, incoming: HttpIncoming): Promise<void> {
  const { out: res, corsHeaders } = caller;
  const accept = caller.headers.get('accept') ?? undefined;
  if (!acceptsMediaType(accept, 'application/json') || !acceptsMediaType(accept, 'text/event-stream')) {
    sendRpcError(
      res,
      406,
      null,
      { code: -32600, message: 'Not Acceptable: Accept must list application/json and text/event-stream' },
      corsHeaders,
    );
    return;
  }
  if (!isJsonContentType(caller.headers.get('content-type'))) {
    sendRpcError(
      res,
      415,
      null,
      { code: -32600, message: 'Unsupported Media Type: Content-Type must be application/json' },
      corsHeaders,
    );
    return;
  }
  let body: string;
  try {
    body = await incoming.readText(context.options.maxBodyBytes);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    sendRpcError(
      res,
      413,
      null,
      { code: -32600, message: `Payload Too Large: limit is ${context.options.maxBodyBytes} bytes` },
      { ...corsHeaders, connection: 'close' },
    );
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    sendRpcError(res, 400, null, { code: -32700, message: 'Parse error' }, corsHeaders);
    return;
  }
  const frame = classify(value);
  if (frame.kind === 'invalid') {
    sendJson(res, 400, invalidMessageResponse(frame), corsHeaders);
    return;
  }
  // A session id means legacy traffic (spec classifier rule 1): only a modern `_meta` body overrides it,
  // so a modern version header alongside a session is that session's version mismatch, not a bare modern POST.
  const sessionHeld =
    context.options.legacy && caller.headers.get('mcp-session-id') !== null && frame.kind !== 'response'
      ? requestEra(frame.message) === 'legacy'
      : false;
  const modern = frame.kind !== 'response' && !sessionHeld && isModernPost(frame.message, caller.headers);
  if (modern || (frame.kind !== 'request' && !context.options.legacy)) {
    if (frame.kind === 'request') await serveModernRequest(context, caller, frame.message);
    else acceptModernMessage(caller, frame);
    return;
  }
  if (!context.options.legacy) {
    refuseLegacy(context, caller, frame.kind === 'request' ? frame.message : undefined);
    return;
  }
  await serveLegacyPost(context, caller, frame);
}

/**
 * A modern-only server answers a request without modern `_meta` as the core's modern pipeline
 * does: `initialize` is a removed method (404, -32601 naming the served versions), anything else
 * lacks its `_meta` (400, -32602).
 */
function refuseLegacy(
  context: TransportContext,
  caller: Caller,
  request: { id: string | number; method: string } | undefined,
): void {
  const id = request?.id ?? null;
  if (request?.method === 'initialize') {
    const versions = context.versions;
    sendRpcError(
      caller.out,
      404,
      id,
      {
        code: -32601,
        message: `Method not found: initialize; this server speaks only ${versions.join(', ')} (stateless: use server/discover and per-request _meta)`,
        data: { supported: [...versions] },
      },
      caller.corsHeaders,
    );
    return;
  }
  sendRpcError(
    caller.out,
    400,
    id,
    { code: -32602, message: `params._meta is required (protocol ${context.versions[0] ?? ''})` },
    caller.corsHeaders,
  );
}

function failed(out: HttpOutgoing): void {
  if (!out.sent) sendRpcError(out, 500, null, { code: -32603, message: 'Internal error' });
  else out.destroy();
}
