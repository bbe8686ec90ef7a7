/** Options of the HTTP transport, their defaults and their validation. */
import { readFileSync } from 'node:fs';
import type { BearerToken } from './bearer-auth.js';
import type { ParamHeader } from './param-headers.js';

export interface TlsOptions {
  /** PEM certificate chain, or `certFile` to read it from disk. */
  cert?: string | Buffer;
  key?: string | Buffer;
  certFile?: string;
  keyFile?: string;
}

export interface HttpTransportOptions {
  /** The MCP endpoint (default `/mcp`); other paths get 404. */
  path?: string;
  /** Bearer tokens; when set, every request must present one (401 otherwise). */
  auth?: { tokens: readonly BearerToken[] };
  /** Host names besides loopback accepted in `Host` (DNS-rebinding guard), e.g. `mcp.example.com`. */
  allowedHosts?: readonly string[];
  /** Origins besides loopback accepted in `Origin`, e.g. `https://app.example.com`. */
  allowedOrigins?: readonly string[];
  tls?: TlsOptions;
  /**
   * Serve legacy (2025-x) sessions, GET streams and DELETE. Default: whenever the core's lifecycle
   * versions include a legacy one. `false` narrows a dual-era core to modern-only; `true` on a
   * modern-only core is a TypeError.
   */
  legacy?: boolean;
  /** Idle legacy sessions are ended after this long (default 30 min). */
  sessionTtlMs?: number;
  /**
   * Most concurrent legacy sessions (default 10,000). At the cap, `initialize` ends the least
   * recently used idle session (no GET stream, nothing in flight); 503 only when none is idle.
   */
  maxSessions?: number;
  /** Largest request body (default 4 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /** Largest request head (default 16 KiB); larger gets 431. */
  maxHeaderBytes?: number;
  /** Time allowed to receive the request head (default 10 s). */
  headersTimeoutMs?: number;
  /** Time allowed to receive the whole request, body included (default 30 s). */
  requestTimeoutMs?: number;
  /** SSE comment keep-alive interval (default 15 s). */
  keepAliveMs?: number;
  /** Unsent bytes per SSE stream before a non-reading client is dropped (default 1 MiB). */
  maxStreamBufferBytes?: number;
  /** Deadline for in-flight requests on `close()` (default 5 s). */
  closeDeadlineMs?: number;
  /**
   * A tool's `x-mcp-header` parameters (see `paramHeadersOf`), so modern `tools/call` POSTs
   * have their `Mcp-Param-*` headers checked against the body (-32020). Without it they are not.
   */
  toolParamHeaders?: (toolName: string) => readonly ParamHeader[] | undefined;
}

export interface ResolvedOptions {
  readonly path: string;
  readonly tokens: readonly BearerToken[] | undefined;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly tls: { cert: string | Buffer; key: string | Buffer } | undefined;
  readonly legacy: boolean;
  readonly sessionTtlMs: number;
  readonly maxSessions: number;
  readonly maxBodyBytes: number;
  readonly maxHeaderBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveMs: number;
  readonly maxStreamBufferBytes: number;
  readonly closeDeadlineMs: number;
  readonly toolParamHeaders: ((toolName: string) => readonly ParamHeader[] | undefined) | undefined;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number`);
  return value;
}

function loadTls(tls: TlsOptions | undefined): ResolvedOptions['tls'] {
  if (tls === undefined) return undefined;
  const cert = tls.cert ?? (tls.certFile !== undefined ? readFileSync(tls.certFile) : undefined);
  const key = tls.key ?? (tls.keyFile !== undefined ? readFileSync(tls.keyFile) : undefined);
  if (cert === undefined || key === undefined)
    throw new TypeError('tls needs cert (or certFile) and key (or keyFile)');
  return { cert, key };
}

export function resolveOptions(options: HttpTransportOptions = {}): ResolvedOptions {
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new TypeError('path must start with "/"');
  const headersTimeoutMs = positive('headersTimeoutMs', options.headersTimeoutMs, 10_000);
  return {
    path,
    tokens: options.auth?.tokens,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
    tls: loadTls(options.tls),
    legacy: options.legacy ?? true,
    sessionTtlMs: positive('sessionTtlMs', options.sessionTtlMs, 30 * 60_000),
    maxSessions: positive('maxSessions', options.maxSessions, 10_000),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 4 * 1024 * 1024),
    maxHeaderBytes: positive('maxHeaderBytes', options.maxHeaderBytes, 16 * 1024),
    headersTimeoutMs,
    // Node requires requestTimeout >= headersTimeout.
    requestTimeoutMs: Math.max(
      headersTimeoutMs,
      positive('requestTimeoutMs', options.requestTimeoutMs, 30_000),
    ),
    keepAliveMs: positive('keepAliveMs', options.keepAliveMs, 15_000),
    maxStreamBufferBytes: positive('maxStreamBufferBytes', options.maxStreamBufferBytes, 1024 * 1024),
    closeDeadlineMs: positive('closeDeadlineMs', options.closeDeadlineMs, 5_000),
    toolParamHeaders: options.toolParamHeaders,
  };
}
