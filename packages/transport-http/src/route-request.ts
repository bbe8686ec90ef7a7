/** The per-request pipeline: path, Host/Origin, auth, method, then the era's handler. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestEra } from '@agentd/lifecycle';
import { classify, invalidMessageResponse } from '@agentd/rpc-frame';
import { acceptsMediaType } from './accept.js';
import type { Authenticator } from './bearer-auth.js';
import { drainBody } from './drain-body.js';
import { isModernPost } from './era.js';
import { type HostPolicy, isAllowedHost, isAllowedOrigin } from './host-origin.js';
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost } from './legacy-exchange.js';
import { acceptModernMessage, serveModernRequest } from './modern-exchange.js';
import { BodyTooLarge, readBody } from './read-body.js';
import { sendEmpty, sendJson, sendRpcError } from './replies.js';
import type { Caller, TransportContext } from './transport-context.js';

const ALLOW = 'GET, POST, DELETE';
/** How long the rest of an oversized body is discarded after the 413 before the connection is cut. */
const DRAIN_MS = 2_000;
const CORS_ALLOW_HEADERS =
  'authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id';

function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function corsFor(origin: string | undefined, policy: HostPolicy): Record<string, string> | undefined {
  if (origin === undefined || !policy.origins.has(origin.toLowerCase().replace(/\/+$/, ''))) return undefined;
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'mcp-session-id',
  };
}

export function routeRequest(
  context: TransportContext,
  policy: HostPolicy,
  authenticate: Authenticator | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  if (pathOf(req.url) !== context.options.path) {
    sendJson(res, 404, { error: 'not found' });
    return;
  }
  const origin = req.headers.origin;
  if (!isAllowedHost(req.headers.host, policy) || !isAllowedOrigin(origin, policy)) {
    sendRpcError(res, 403, null, { code: -32600, message: 'Forbidden: Host or Origin not allowed' });
    return;
  }
  const corsHeaders = corsFor(origin, policy);
  if (req.method === 'OPTIONS' && corsHeaders !== undefined) {
    sendEmpty(res, 204, {
      ...corsHeaders,
      'access-control-allow-methods': ALLOW,
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    return;
  }
  let principal: ReturnType<Authenticator>;
  if (authenticate !== undefined) {
    principal = authenticate(req.headers.authorization);
    if (principal === undefined) {
      sendRpcError(
        res,
        401,
        null,
        { code: -32600, message: 'Unauthorized' },
        { ...corsHeaders, 'www-authenticate': 'Bearer' },
      );
      return;
    }
  }
  if (context.closing) {
    sendRpcError(
      res,
      503,
      null,
      { code: -32603, message: 'Server is shutting down' },
      { ...corsHeaders, connection: 'close' },
    );
    return;
  }
  const caller: Caller = { req, res, principal, corsHeaders };
  switch (req.method) {
    case 'POST':
      servePost(context, caller).catch((error: unknown) => failed(res, error));
      return;
    case 'GET':
    case 'DELETE':
      serveSessionMethod(context, caller, req.method);
      return;
    default:
      sendEmpty(res, 405, { ...corsHeaders, allow: ALLOW });
  }
}

/** GET/DELETE exist only for legacy sessions; without one (or legacy off) they are 405. */
function serveSessionMethod(context: TransportContext, caller: Caller, method: 'GET' | 'DELETE'): void {
  const { req, res } = caller;
  if (!context.options.legacy || req.headers['mcp-session-id'] === undefined) {
    sendEmpty(res, 405, { ...caller.corsHeaders, allow: context.options.legacy ? ALLOW : 'POST' });
    return;
  }
  if (method === 'DELETE') {
    serveLegacyDelete(context, caller);
    return;
  }
  if (!acceptsMediaType(req.headers.accept, 'text/event-stream')) {
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

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

async function servePost(context: TransportContext, caller: Caller): Promise<void> {
  const { req, res, corsHeaders } = caller;
  const accept = req.headers.accept;
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
  if (!isJsonContentType(req.headers['content-type'])) {
    sendRpcError(
      res,
      415,
      null,
      { code: -32600, message: 'Unsupported Media Type: Content-Type must be application/json' },
      corsHeaders,
    );
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(req, context.options.maxBodyBytes);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    sendRpcError(
      res,
      413,
      null,
      { code: -32600, message: `Payload Too Large: limit is ${context.options.maxBodyBytes} bytes` },
      corsHeaders,
    );
    drainBody(req, res, { maxBytes: context.options.maxBodyBytes * 4, maxMs: DRAIN_MS });
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
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
    context.options.legacy && req.headers['mcp-session-id'] !== undefined && frame.kind !== 'response'
      ? requestEra(frame.message) === 'legacy'
      : false;
  const modern = frame.kind !== 'response' && !sessionHeld && isModernPost(frame.message, req.headers);
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
      caller.res,
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
    caller.res,
    400,
    id,
    { code: -32602, message: `params._meta is required (protocol ${context.versions[0] ?? ''})` },
    caller.corsHeaders,
  );
}

function failed(res: ServerResponse, _error: unknown): void {
  if (!res.headersSent) sendRpcError(res, 500, null, { code: -32603, message: 'Internal error' });
  else res.destroy();
}
