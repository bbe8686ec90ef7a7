/** Serves the Prometheus text on `--metrics`: GET only, Host checked, bearer token unless loopback. */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { LocalError } from '@agentd/rpc-frame';
import type { Registry } from 'prom-client';
import type { AgentdErrorCode } from '../local-errors.js';
import type { MetricsTarget } from './metrics-target.js';

export interface MetricsServer {
  /** Where it listens, with the real port (`http://127.0.0.1:9464/metrics`). */
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Constant-time: the comparison never tells how much of a token matched. */
function tokenMatches(header: string | undefined, tokens: readonly string[]): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  let ok = false;
  for (const token of tokens) {
    const expected = Buffer.from(token);
    const same = given.length === expected.length && timingSafeEqual(given, expected);
    ok = ok || same;
  }
  return ok;
}

export async function serveMetrics(
  target: MetricsTarget,
  registry: Registry,
  tokens: readonly string[],
): Promise<MetricsServer> {
  // Loopback without a token is the one unauthenticated case (agentd config rejects the others).
  const needsToken = !target.loopback;
  const hostName = (host: string) => (host.includes(':') ? `[${host}]` : host);
  const allowedHosts = new Set<string>();
  const send = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(text);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // The Host check stops DNS rebinding: a web page cannot make a browser read these for it.
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase())) return send(res, 403, 'forbidden host\n');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== target.path) return send(res, 404, `not found; metrics are at ${target.path}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'GET only\n', { allow: 'GET, HEAD' });
    if (needsToken && !tokenMatches(req.headers.authorization, tokens))
      return send(res, 401, 'bearer token required\n', { 'www-authenticate': 'Bearer' });
    const body = await registry.metrics();
    res.writeHead(200, { 'content-type': registry.contentType });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'metrics unavailable\n');
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new LocalError<AgentdErrorCode>(
            'address_in_use',
            `metrics: ${target.host}:${target.port} is already in use`,
            {
              cause: error,
            },
          ),
        );
      else if (error.code === 'EADDRNOTAVAIL')
        reject(
          new LocalError<AgentdErrorCode>(
            'address_unavailable',
            `metrics: ${target.host} is not an address of this machine`,
            {
              cause: error,
            },
          ),
        );
      else reject(error);
    });
    server.listen(target.port, target.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  for (const name of target.loopback ? [...LOOPBACK_NAMES, hostName(target.host)] : [hostName(target.host)]) {
    allowedHosts.add(`${name}:${port}`.toLowerCase());
  }
  return {
    url: `http://${hostName(target.host)}:${port}${target.path}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
