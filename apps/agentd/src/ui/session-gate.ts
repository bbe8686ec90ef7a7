/**
 * Requests to the MCP endpoint that carry a dashboard session (`Authorization: Bearer ads_…`) go
 * to an endpoint of their own whose one token is a secret that never leaves this process: the
 * session becomes a management peer named `dashboard` whether or not bearer tokens are configured,
 * and every other request (anonymous, a configured token, OAuth) is served exactly as before.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerCore } from '@agentd/server';
import { createNodeHandler, type NodeHandler } from '@agentd/transport-http/node';
import type { DashboardSessions } from './dashboard-sessions.js';
import { isOwnOrigin } from './own-origin.js';

export interface SessionGateOptions {
  path: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

export interface SessionGate {
  /** Serves the request and returns true when it carries a dashboard session; false leaves it alone. */
  (req: IncomingMessage, res: ServerResponse): boolean;
  close(deadlineMs: number): Promise<void>;
}

const bearerOf = (header: string | undefined) => /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];

export function sessionGate(
  core: ServerCore,
  sessions: DashboardSessions,
  options: SessionGateOptions,
): SessionGate {
  const inner = randomBytes(32).toString('base64url');
  const handler: NodeHandler = createNodeHandler(core, {
    path: options.path,
    auth: { tokens: [{ name: 'dashboard', token: inner }] },
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
  });
  const gate = (req: IncomingMessage, res: ServerResponse): boolean => {
    const token = bearerOf(req.headers.authorization);
    if (token === undefined || !sessions.isSession(token)) return false;
    // A browser always names its page's origin: a session is good only on its own origin's page.
    if (req.headers.origin !== undefined && !isOwnOrigin(req)) {
      res.writeHead(403, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
      });
      res.end('Origin not allowed for a dashboard session\n');
      return true;
    }
    req.headers.authorization = `Bearer ${inner}`;
    handler(req, res);
    return true;
  };
  return Object.assign(gate, { close: (deadlineMs: number) => handler.close(deadlineMs) });
}
