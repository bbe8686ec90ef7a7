/**
 * GET /ui and /ui/ on an HTTP listener: the runs page (and /favicon.ico, which every browser asks for). It follows the listener's trust exactly:
 * the same Host and Origin rules as the MCP endpoint (the DNS-rebinding guard), no auth of its own
 * (the page holds no data; everything it shows comes from the endpoint, which checks the peer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HostPolicy, hostPolicy, isAllowedHost, isAllowedOrigin } from '@agentd/lifecycle';
import type { DashboardSessions } from './dashboard-sessions.js';
import { FAVICON, FAVICON_PATH, FAVICON_TYPE } from './favicon.js';
import { isOwnOrigin } from './own-origin.js';
import type { RunsPage } from './runs-page.js';

const PATHS = new Set(['/ui', '/ui/']);
const SESSION_PATH = '/ui/session';

export interface DashboardOptions {
  /** The listener's MCP endpoint path, which the page talks to. */
  endpointPath: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** Where `POST /ui/session` trades the local operator token for a session; absent: no sign-in. */
  sessions?: DashboardSessions;
}

const escapeAttribute = (text: string) => text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Answers the dashboard's paths and returns true; returns false for every other request. */
export function dashboardRoute(
  page: RunsPage,
  options: DashboardOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const policy = hostPolicy(options.allowedHosts, options.allowedOrigins);
  // The page learns its endpoint from a meta tag, so one build serves any configured path.
  const html = Buffer.from(
    page.html.replace(
      '<head>',
      `<head>\n    <meta name="agentd-endpoint" content="${escapeAttribute(options.endpointPath)}" />`,
    ),
  );
  const owned = !PATHS.has(options.endpointPath);
  const ownsIcon = options.endpointPath !== FAVICON_PATH;
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const icon = ownsIcon && path === FAVICON_PATH;
    if (owned && path === SESSION_PATH && options.sessions !== undefined) {
      signIn(req, res, policy, options.sessions);
      return true;
    }
    if (!icon && (!owned || !PATHS.has(path))) return false;
    const refuse = (status: number, text: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        ...extra,
      });
      res.end(`${text}\n`);
    };
    if (!isAllowedHost(req.headers.host, policy)) refuse(403, 'Host not allowed');
    else if (!isAllowedOrigin(req.headers.origin, policy)) refuse(403, 'Origin not allowed');
    else if (req.method !== 'GET' && req.method !== 'HEAD')
      refuse(405, 'Method not allowed', { allow: 'GET, HEAD' });
    else if (icon) {
      res.writeHead(200, {
        'content-type': FAVICON_TYPE,
        'content-length': String(FAVICON.length),
        'x-content-type-options': 'nosniff',
        'cache-control': 'max-age=86400',
      });
      res.end(req.method === 'HEAD' ? undefined : FAVICON);
    } else {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(html.length),
        'content-security-policy': page.csp,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'cache-control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : html);
    }
    return true;
  };
}

function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  res.end(text);
}

/**
 * POST /ui/session with `Authorization: Bearer <operator token>`: a new dashboard session. Only
 * from the dashboard's own page (its exact origin): a page on another port, or none, gets nothing.
 */
function signIn(
  req: IncomingMessage,
  res: ServerResponse,
  policy: HostPolicy,
  sessions: DashboardSessions,
): void {
  req.resume();
  if (!isAllowedHost(req.headers.host, policy)) answer(res, 403, { error: 'Host not allowed' });
  else if (req.method !== 'POST') answer(res, 405, { error: 'Method not allowed' }, { allow: 'POST' });
  else if (!isOwnOrigin(req)) answer(res, 403, { error: "Origin must be the dashboard's own" });
  else signInWith(req, res, sessions);
}

function signInWith(req: IncomingMessage, res: ServerResponse, sessions: DashboardSessions): void {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const session = token === undefined ? undefined : sessions.signIn(token);
  if (session === undefined)
    answer(res, 401, {
      error: 'that sign-in link is not (or no longer) valid: run agentd ui --open for a new one',
    });
  else answer(res, 200, { session });
}
