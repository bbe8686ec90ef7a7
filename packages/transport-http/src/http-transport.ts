/** createHttpTransport / serveHttp: a ready-made node:http(s) server around the Node handler. */
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type * as https from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServerCore } from '@agentd/server';
import { httpError, invalidOption } from './local-errors.js';
import { isLoopbackAddress } from './loopback-address.js';
import { createEndpoint } from './mcp-endpoint.js';
import { serveNodeRequest } from './node-handler.js';
import type { McpHttpOptions } from './options.js';

export interface TlsOptions {
  /** PEM certificate chain, or `certFile` to read it from disk. */
  cert?: string | Buffer;
  key?: string | Buffer;
  certFile?: string;
  keyFile?: string;
}

export interface HttpTransportOptions extends McpHttpOptions {
  tls?: TlsOptions;
  /** Largest request head (default 16 KiB); larger gets 431. */
  maxHeaderBytes?: number;
  /** Time allowed to receive the request head (default 10 s). */
  headersTimeoutMs?: number;
  /** Time allowed to receive the whole request, body included (default 30 s). */
  requestTimeoutMs?: number;
}

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

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw invalidOption(`${name} must be a positive number`);
  return value;
}

function loadTls(tls: TlsOptions | undefined): { cert: string | Buffer; key: string | Buffer } | undefined {
  if (tls === undefined) return undefined;
  const cert = tls.cert ?? (tls.certFile !== undefined ? readFileSync(tls.certFile) : undefined);
  const key = tls.key ?? (tls.keyFile !== undefined ? readFileSync(tls.keyFile) : undefined);
  if (cert === undefined || key === undefined)
    throw invalidOption('tls needs cert (or certFile) and key (or keyFile)');
  return { cert, key };
}

export function createHttpTransport(core: ServerCore, options: HttpTransportOptions = {}): HttpTransport {
  const { tls: tlsOption, maxHeaderBytes, headersTimeoutMs, requestTimeoutMs, ...rules } = options;
  const endpoint = createEndpoint(core, rules);
  const tls = loadTls(tlsOption);
  const headersTimeout = positive('headersTimeoutMs', headersTimeoutMs, 10_000);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => serveNodeRequest(endpoint, req, res);
  const serverOptions = {
    maxHeaderSize: positive('maxHeaderBytes', maxHeaderBytes, 16 * 1024),
    headersTimeout,
    // Node requires requestTimeout >= headersTimeout.
    requestTimeout: Math.max(headersTimeout, positive('requestTimeoutMs', requestTimeoutMs, 30_000)),
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  };
  const server: Server =
    tls === undefined
      ? createHttpServer(serverOptions, onRequest)
      : // node:https pulls in TLS (a millisecond or two at startup): loaded only by a server with TLS.
        ((createRequire(import.meta.url)('node:https') as typeof https).createServer(
          { ...serverOptions, cert: tls.cert, key: tls.key },
          onRequest,
        ) as unknown as Server);
  server.on('clientError', answerClientError);

  let closing: Promise<void> | undefined;
  return {
    server,
    get sessionCount() {
      return endpoint.sessionCount;
    },
    get activeRequests() {
      return endpoint.activeRequests;
    },
    listen(port = 0, host = '127.0.0.1') {
      if (!endpoint.authenticated && !isLoopbackAddress(host)) {
        return Promise.reject(
          httpError(
            'insecure_bind',
            `refusing to listen on non-loopback ${host} without auth (set auth.tokens or auth.oauth)`,
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
    close(deadlineMs = endpoint.options.closeDeadlineMs) {
      closing ??= shutdown(server, () => endpoint.close(deadlineMs));
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

async function shutdown(server: Server, drainEndpoint: () => Promise<void>): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await drainEndpoint();
  server.closeAllConnections();
  await stopped;
}

export interface ServeHttpOptions extends HttpTransportOptions {
  host?: string;
  port?: number;
}

/** Creates the transport and listens; resolves once the socket is bound. */
export async function serveHttp(
  core: ServerCore,
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
