/** createHttpTransport / serveHttp: one node:http(s) server speaking both MCP eras on one path. */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalError } from '@agentd/rpc-frame';
import { type Authenticator, createAuthenticator } from './bearer-auth.js';
import type { CorePort } from './core-port.js';
import { hostPolicy, isLoopbackAddress } from './host-origin.js';
import { type HttpTransportOptions, resolveOptions } from './options.js';
import { routeRequest } from './route-request.js';
import { servedVersions } from './served-versions.js';
import { SessionStore } from './session-store.js';
import type { TransportContext } from './transport-context.js';

export interface HttpTransport {
  readonly server: Server;
  /** Listens (default 127.0.0.1, port 0); a non-loopback host without auth is refused. */
  listen(port?: number, host?: string): Promise<AddressInfo>;
  /** Stops accepting, ends SSE streams (listen streams with their final result), drains, then cuts. */
  close(deadlineMs?: number): Promise<void>;
  /** Open legacy sessions. */
  readonly sessionCount: number;
  /** Requests being answered right now (listen and legacy POST streams included). */
  readonly activeRequests: number;
}

export function createHttpTransport(core: CorePort, options: HttpTransportOptions = {}): HttpTransport {
  const served = servedVersions(core, options.legacy);
  const resolved = { ...resolveOptions(options), legacy: served.legacy };
  const authenticate: Authenticator | undefined =
    resolved.tokens === undefined ? undefined : createAuthenticator(resolved.tokens);
  let counter = 0;
  const context: TransportContext = {
    core,
    options: resolved,
    versions: served.versions,
    sse: { keepAliveMs: resolved.keepAliveMs, maxBufferedBytes: resolved.maxStreamBufferBytes },
    sessions: new SessionStore({ ttlMs: resolved.sessionTtlMs, maxSessions: resolved.maxSessions }),
    exchanges: new Set(),
    closing: false,
    nextId: () => `http-${(++counter).toString(36)}`,
  };
  const policy = hostPolicy(resolved.allowedHosts, resolved.allowedOrigins);
  const onRequest = (req: IncomingMessage, res: ServerResponse) =>
    routeRequest(context, policy, authenticate, req, res);
  const serverOptions = {
    maxHeaderSize: resolved.maxHeaderBytes,
    headersTimeout: resolved.headersTimeoutMs,
    requestTimeout: resolved.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, resolved.headersTimeoutMs),
  };
  const server: Server =
    resolved.tls === undefined
      ? createHttpServer(serverOptions, onRequest)
      : (createHttpsServer(
          { ...serverOptions, cert: resolved.tls.cert, key: resolved.tls.key },
          onRequest,
        ) as unknown as Server);
  server.on('clientError', answerClientError);

  let closing: Promise<void> | undefined;
  return {
    server,
    get sessionCount() {
      return context.sessions.size;
    },
    get activeRequests() {
      return context.exchanges.size;
    },
    listen(port = 0, host = '127.0.0.1') {
      if (authenticate === undefined && !isLoopbackAddress(host)) {
        return Promise.reject(
          new LocalError(
            'insecure_bind',
            `refusing to listen on non-loopback ${host} without auth (set auth.tokens)`,
          ),
        );
      }
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close(deadlineMs = resolved.closeDeadlineMs) {
      closing ??= shutdown(context, server, deadlineMs);
      return closing;
    },
  };
}

/** Malformed, oversized or too-slow requests get a status line, then the socket is closed. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || socket.destroyed) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

async function shutdown(context: TransportContext, server: Server, deadlineMs: number): Promise<void> {
  context.closing = true;
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Long-lived streams never finish on their own: end them now (listen streams with a result).
  context.sessions.endStreams();
  for (const exchange of context.exchanges) if (exchange.longLived()) exchange.shutdown(false);
  const deadline = Date.now() + deadlineMs;
  while (context.exchanges.size > 0 && Date.now() < deadline) await sleep(10);
  for (const exchange of [...context.exchanges]) exchange.shutdown(true);
  context.sessions.endAll();
  server.closeAllConnections();
  await stopped;
}

export interface ServeHttpOptions extends HttpTransportOptions {
  host?: string;
  port?: number;
}

/** Creates the transport and listens; resolves once the socket is bound. */
export async function serveHttp(
  core: CorePort,
  options: ServeHttpOptions = {},
): Promise<HttpTransport & { readonly address: AddressInfo; readonly url: string }> {
  const { host = '127.0.0.1', port = 0, ...rest } = options;
  const transport = createHttpTransport(core, rest);
  const address = await transport.listen(port, host);
  const scheme = rest.tls === undefined ? 'http' : 'https';
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${scheme}://${hostPart}:${address.port}${rest.path ?? '/mcp'}`;
  return Object.assign(transport, { address, url });
}
