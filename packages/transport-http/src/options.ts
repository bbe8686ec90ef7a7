/** Options of the HTTP transport, their defaults and their validation. */

import type { ParamHeader } from '@agentd/lifecycle';
import type { AuthOptions } from './auth-gate.js';
import type { EventStore } from './event-store.js';
import { invalidOption } from './local-errors.js';
import { MemoryEventStore } from './memory-event-store.js';

/** The rules every host adapter applies (fetch handler, Node handler, `serveHttp`). */
export interface McpHttpOptions {
  /** The MCP endpoint (default `/mcp`); other paths are not this handler's (404 or `next()`). */
  path?: string;
  /**
   * Static bearer tokens and/or an OAuth 2.1 resource server; when set, every request must
   * present a valid token (401 otherwise). Without it every peer is `anonymous`.
   */
  auth?: AuthOptions;
  /**
   * Host names besides loopback accepted in `Host` (DNS-rebinding guard), e.g. `mcp.example.com`;
   * `'*'` accepts any (for hosts that route by name themselves, such as Workers).
   */
  allowedHosts?: readonly string[];
  /** Origins besides loopback accepted in `Origin`, e.g. `https://app.example.com`. */
  allowedOrigins?: readonly string[];
  /**
   * Serve legacy (2025-x) sessions, GET streams and DELETE. Default: whenever the core's lifecycle
   * versions include a legacy one. `false` narrows a dual-era core to modern-only; `true` on a
   * modern-only core is a LocalError `invalid_options`.
   */
  legacy?: boolean;
  /** Idle legacy sessions are ended after this long (default 30 min). */
  sessionTtlMs?: number;
  /**
   * Starts every minted legacy session id (`Mcp-Session-Id`), e.g. `r1-`, so a balancer can route
   * a session back to the replica holding it (1–32 of `A-Z a-z 0-9 _ -`). Default none.
   */
  sessionIdPrefix?: string;
  /**
   * Most concurrent legacy sessions (default 10,000). At the cap, `initialize` ends the least
   * recently used idle session (no GET stream, nothing in flight); 503 only when none is idle.
   */
  maxSessions?: number;
  /**
   * Most concurrent legacy sessions of one principal (default 1,000; anonymous peers share one
   * quota). At either cap, `initialize` ends only the caller's own least recently used idle
   * session, so no principal pushes another's sessions out.
   */
  maxSessionsPerPrincipal?: number;
  /** Largest request body (default 4 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /** SSE comment keep-alive interval (default 15 s). */
  keepAliveMs?: number;
  /**
   * Legacy (2025-11-25) SSE resumability, SEP-1699: where every event of a legacy SSE stream is
   * recorded, so a client whose connection closed resumes with GET + `Last-Event-ID` and gets
   * the rest of that stream. Default: a `MemoryEventStore` (this replica's streams); a shared
   * one (`RedisEventStore` of `@agentd/redis`) lets the resumed GET land on any replica.
   * `false`: no event ids, no resumption. The 2026-07-28 era has no event ids either way.
   */
  eventStore?: EventStore | false;
  /** The `retry:` (ms) a resumable stream advises clients to wait before reconnecting (default 1 s). */
  retryMs?: number;
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
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly legacy: boolean;
  readonly sessionTtlMs: number;
  readonly sessionIdPrefix: string;
  readonly maxSessions: number;
  readonly maxSessionsPerPrincipal: number;
  readonly maxBodyBytes: number;
  readonly keepAliveMs: number;
  readonly eventStore: EventStore | undefined;
  readonly retryMs: number;
  readonly maxStreamBufferBytes: number;
  readonly closeDeadlineMs: number;
  readonly toolParamHeaders: ((toolName: string) => readonly ParamHeader[] | undefined) | undefined;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw invalidOption(`${name} must be a positive number`);
  return value;
}

function sessionIdPrefix(value: string | undefined): string {
  if (value === undefined) return '';
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(value))
    throw invalidOption('sessionIdPrefix must be 1-32 characters of A-Z a-z 0-9 _ -');
  return value;
}

function retryMs(value: number | undefined): number {
  if (value === undefined) return 1_000;
  if (!Number.isSafeInteger(value) || value < 0)
    throw invalidOption('retryMs must be a non-negative integer');
  return value;
}

export function resolveOptions(options: McpHttpOptions = {}): ResolvedOptions {
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw invalidOption('path must start with "/"');
  const maxSessions = positive('maxSessions', options.maxSessions, 10_000);
  return {
    path,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
    legacy: options.legacy ?? true,
    sessionTtlMs: positive('sessionTtlMs', options.sessionTtlMs, 30 * 60_000),
    sessionIdPrefix: sessionIdPrefix(options.sessionIdPrefix),
    maxSessions,
    maxSessionsPerPrincipal: Math.min(
      maxSessions,
      positive('maxSessionsPerPrincipal', options.maxSessionsPerPrincipal, 1_000),
    ),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 4 * 1024 * 1024),
    keepAliveMs: positive('keepAliveMs', options.keepAliveMs, 15_000),
    eventStore: options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore()),
    retryMs: retryMs(options.retryMs),
    maxStreamBufferBytes: positive('maxStreamBufferBytes', options.maxStreamBufferBytes, 1024 * 1024),
    closeDeadlineMs: positive('closeDeadlineMs', options.closeDeadlineMs, 5_000),
    toolParamHeaders: options.toolParamHeaders,
  };
}
