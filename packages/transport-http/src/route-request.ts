/** The per-request pipeline: Host/Origin, CORS preflight, auth, method, then the era's handler. */
import {
  classifyHttpPost,
  type HostPolicy,
  isAllowedHost,
  isAllowedOrigin,
  postHeadersRefusal,
  refuse,
  streamAcceptRefusal,
} from '@agentd/lifecycle';
import { errorFields } from '@agentd/rpc-frame';
import { type AuthGate, scopeChallenge } from './auth-gate.js';
import type { Principal } from './bearer-auth.js';
import type { HttpIncoming, HttpOutgoing } from './http-io.js';
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost } from './legacy-exchange.js';
import { serveModernRequest } from './modern-exchange.js';
import { readPostBody } from './post-body.js';
import { serveProfiledPost } from './profiled-exchange.js';
import { isMetadataPath, metadataDocument, resourceOf } from './protected-resource.js';
import { failed, sendEmpty, sendJson, sendRefusal } from './replies.js';
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
  } catch (thrown) {
    // The client learns only that it failed; the cause goes to the core's log.
    context.core.logger.error('http request failed with an internal error', {
      method: incoming.method,
      path: incoming.path,
      ...errorFields(thrown),
    });
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
    sendRefusal(out, null, refuse.hostNotAllowed());
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
      if (outcome.refusal.reason === 'auth-unavailable') extra['retry-after'] = '5';
      sendRefusal(out, null, outcome.refusal, extra);
      return;
    }
    principal = outcome.principal;
  }
  if (context.closing) {
    sendRefusal(out, null, refuse.shuttingDown(), { ...corsHeaders, connection: 'close' });
    return;
  }
  const caller: Caller = {
    headers,
    out,
    remoteAddress: incoming.remoteAddress,
    principal,
    corsHeaders,
    scopeChallenge: (scopes) => scopeChallenge(gate, incoming, context.options.path, scopes),
  };
  switch (incoming.method) {
    case 'POST':
      await servePost(context, caller, incoming);
      return;
    case 'GET':
    case 'DELETE':
      await serveSessionMethod(context, caller, incoming.method);
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
async function serveSessionMethod(
  context: TransportContext,
  caller: Caller,
  method: 'GET' | 'DELETE',
): Promise<void> {
  const res = caller.out;
  const sessionId = caller.headers.get('mcp-session-id');
  if (!context.options.legacy || sessionId === null) {
    sendEmpty(res, 405, { ...caller.corsHeaders, allow: context.options.legacy ? ALLOW : 'POST' });
    return;
  }
  if (method === 'DELETE') {
    await serveLegacyDelete(context, caller, sessionId);
    return;
  }
  const refusal = streamAcceptRefusal(caller.headers);
  if (refusal !== undefined) {
    sendRefusal(res, null, refusal, caller.corsHeaders);
    return;
  }
  await serveLegacyGet(context, caller, sessionId);
}

async function servePost(context: TransportContext, caller: Caller, incoming: HttpIncoming): Promise<void> {
  // A core with a wire profile has an exchange of its own: the profile's header rule, every body to it.
  const profile = context.core.profile;
  if (profile !== undefined) {
    await serveProfiledPost(context, caller, incoming, profile);
    return;
  }
  const body = await readPostBody(context, caller, incoming, postHeadersRefusal(caller.headers));
  if (body === undefined) return;
  const { out: res, corsHeaders } = caller;
  let parsed: { ok: true; value: unknown } | { ok: false };
  try {
    parsed = { ok: true, value: JSON.parse(body) };
  } catch {
    parsed = { ok: false };
  }
  const route = classifyHttpPost(parsed, caller.headers, {
    legacy: context.options.legacy,
    lifecycle: context.lifecycle,
  });
  switch (route.kind) {
    case 'invalid':
      sendJson(res, 400, route.response, corsHeaders);
      return;
    case 'refuse':
      sendRefusal(res, route.id, route.refusal, corsHeaders);
      return;
    case 'modern-notification':
      sendEmpty(res, 202, corsHeaders);
      return;
    case 'modern-request':
      await serveModernRequest(context, caller, route.request, route.classified);
      return;
    case 'legacy':
      await serveLegacyPost(context, caller, route.frame, route.sessionId);
  }
}
