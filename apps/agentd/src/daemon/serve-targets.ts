/** Starts the serve targets on one ServerCore: unix, vsock, http(s) and stdio. */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import type { Logger } from '@agentd/rpc-frame';
import { LocalError } from '@agentd/rpc-frame';
import { openStdio, type ServeConnectionOptions, type ServerCore } from '@agentd/server';
import { createJwtVerifier } from '@agentd/transport-http/jwt';
import { createHttpTransport } from '@agentd/transport-http/node';
import { bindUnix, isNamedPipePath, serveUnix } from '@agentd/transport-unix';
import type { AgentdConfig } from '../config/config-schema.js';
import { ensureOperatorToken, operatorTokenPath } from '../config/operator-token.js';
import { bridgeSocketPath, defaultRuntimeDir } from '../config/runtime-dir.js';
import type { ServeTarget } from '../config/serve-target.js';
import type { AgentdErrorCode } from '../local-errors.js';
import { dashboardRoute } from '../ui/dashboard-route.js';
import { DashboardSessions } from '../ui/dashboard-sessions.js';
import { runsPage } from '../ui/runs-page.js';
import { type SessionGate, sessionGate } from '../ui/session-gate.js';
import { removeSocketPid, socketPidHolder, writeSocketPid } from './socket-pid.js';

export interface Listener {
  readonly target: ServeTarget;
  /** Where peers reach it: a socket path, a URL, 'vsock:CID:PORT', 'stdio'. */
  readonly address: string;
  /** The dashboard's URL on an HTTP listener that serves it (browsed through loopback when bound to any). */
  readonly dashboard?: string;
  close(deadlineMs: number): Promise<void>;
}

export interface ListenContext {
  core: ServerCore;
  config: AgentdConfig;
  tls: { cert: string; key: string } | undefined;
  logger: Logger;
  /** Called when the stdio peer closes stdin: the MCP stdio transport's way to end the server. */
  onStdioEnd: () => void;
  /** Starts the legacy session ids this replica mints, so a balancer routes sessions back to it. */
  sessionIdPrefix?: string;
}

/**
 * Creates the socket's directory (0700). The default runtime dir may live in a shared temp dir,
 * so it must be a real directory owned by this user and private, or the socket could be swapped.
 */
function ensureSocketDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (dir !== defaultRuntimeDir()) return;
  const stats = lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : stats.uid;
  if (!stats.isDirectory() || stats.uid !== uid) {
    throw new LocalError<AgentdErrorCode>(
      'unsafe_runtime_dir',
      `${dir} is not a directory owned by this user; refusing to put the socket there`,
    );
  }
  if ((stats.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

async function listenUnix(
  target: Extract<ServeTarget, { kind: 'unix' }>,
  ctx: ListenContext,
): Promise<Listener> {
  if (!isNamedPipePath(target.path)) ensureSocketDir(dirname(target.path));
  const pipe = isNamedPipePath(target.path);
  // bindUnix replaces a stale socket and refuses a live one (address_in_use).
  let listener: Awaited<ReturnType<typeof bindUnix>>;
  try {
    listener = await bindUnix(target.path, { mode: 0o600 });
  } catch (error) {
    const holder = pipe ? undefined : socketPidHolder(target.path);
    if (!(error instanceof LocalError) || error.code !== 'address_in_use' || holder === undefined)
      throw error;
    throw new LocalError<AgentdErrorCode>(
      'address_in_use',
      `${target.path}: agentd pid ${holder} is already listening on this socket (stop it with kill ${holder}, or choose another --serve unix:PATH)`,
      { cause: error },
    );
  }
  if (!pipe) writeSocketPid(target.path);
  const served = serveUnix(listener, ctx.core, connectionOptions(ctx.config));
  // Bound once the main socket is ours, so a live bridge socket is always this daemon's.
  const bridge = pipe ? undefined : await listenBridge(target.path, ctx);
  return {
    target,
    address: target.path,
    close: async (deadlineMs) => {
      await Promise.all([served.close(deadlineMs), bridge?.close(deadlineMs)]);
      if (!pipe) removeSocketPid(target.path);
    },
  };
}

/** The `agentd stdio` bridge beside a unix socket: same dir, 0600, every peer origin `stdio`. */
async function listenBridge(path: string, ctx: ListenContext) {
  const bridgePath = bridgeSocketPath(path);
  try {
    const listener = await bindUnix(bridgePath, { mode: 0o600 });
    return serveUnix(listener, ctx.core, { ...connectionOptions(ctx.config), origin: 'stdio' });
  } catch (error) {
    // The daemon still serves; `agentd stdio` then serves in-process, as without a daemon.
    ctx.logger.warn('no stdio bridge socket', { path: bridgePath, error: String(error) });
    return undefined;
  }
}

async function listenVsock(
  target: Extract<ServeTarget, { kind: 'vsock' }>,
  ctx: ListenContext,
): Promise<Listener> {
  // Loaded on demand: the native addon is only needed when a vsock target is configured.
  const vsock = await import('@agentd/transport-vsock');
  const listener = vsock.bindVsock(
    target.cid === undefined ? { port: target.port } : { cid: target.cid, port: target.port },
  );
  // Every accepted vsock peer is a management peer: the VM boundary is the access control.
  const served = vsock.serveVsock(listener, ctx.core, connectionOptions(ctx.config));
  // Which native addon serves it (a prebuilt one from the package, or a source build), for support.
  const addon = vsock.vsockAddonInfo();
  ctx.logger.info('vsock addon loaded', { target: target.raw, kind: addon?.kind, file: addon?.file });
  return {
    target,
    address: `vsock:${target.cid ?? 'any'}:${target.port}`,
    close: (deadlineMs) => served.close(deadlineMs),
  };
}

async function listenHttp(
  target: Extract<ServeTarget, { kind: 'http' | 'https' }>,
  ctx: ListenContext,
): Promise<Listener> {
  const tokens = ctx.config.auth.bearerTokens.map((t) => ({ name: t.name, token: t.token }));
  const oauth = oauthOf(ctx.config.auth.oauth, ctx.config.auth.operationScopes);
  const allowedHosts = [...(target.loopback ? [] : [target.host]), ...ctx.config.http.allowedHosts];
  try {
    const served = createHttpTransport(ctx.core, {
      path: target.path,
      ...(tokens.length > 0 || oauth !== undefined
        ? { auth: { ...(tokens.length > 0 ? { tokens } : {}), ...(oauth === undefined ? {} : { oauth }) } }
        : {}),
      allowedHosts,
      allowedOrigins: ctx.config.http.allowedOrigins,
      ...(ctx.sessionIdPrefix === undefined ? {} : { sessionIdPrefix: ctx.sessionIdPrefix }),
      ...(target.kind === 'https' && ctx.tls !== undefined
        ? { tls: { cert: ctx.tls.cert, key: ctx.tls.key } }
        : {}),
    });
    const page = runsPage();
    let gate: SessionGate | undefined;
    if (page !== undefined) {
      const sessions = dashboardSessions(ctx.logger);
      const rules = { allowedHosts, allowedOrigins: ctx.config.http.allowedOrigins };
      gate =
        sessions === undefined ? undefined : sessionGate(ctx.core, sessions, { path: target.path, ...rules });
      // The transport takes no other routes (it answers 404), so its request listener is wrapped: the
      // dashboard shares the server's TLS, timeouts and shutdown; every other path stays the endpoint's.
      const route = dashboardRoute(page, {
        endpointPath: target.path,
        ...rules,
        ...(sessions === undefined ? {} : { sessions }),
      });
      const [endpoint] = served.server.listeners('request') as ((
        req: IncomingMessage,
        res: ServerResponse,
      ) => void)[];
      served.server.removeAllListeners('request');
      served.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        if (!route(req, res) && gate?.(req, res) !== true) endpoint?.(req, res);
      });
    }
    const bound = await served.listen(target.port, target.host);
    const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    const scheme = target.kind === 'https' && ctx.tls !== undefined ? 'https' : 'http';
    const origin = `${scheme}://${host}:${bound.port}`;
    if (page !== undefined) ctx.logger.info('dashboard', { target: target.raw, url: `${origin}/ui/` });
    else
      ctx.logger.warn('no dashboard: dist/ui/runs.html is missing (build the package with its build script)');
    if (!target.loopback && target.kind === 'http') {
      ctx.logger.warn(
        'bearer tokens travel in clear text over http on a non-loopback address; prefer https',
        { target: target.raw },
      );
    }
    return {
      target,
      address: `${origin}${target.path}`,
      ...(page === undefined ? {} : { dashboard: browsable(`${origin}/ui/`) }),
      close: async (deadlineMs) => {
        await Promise.all([served.close(deadlineMs), gate?.close(deadlineMs)]);
      },
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new LocalError<AgentdErrorCode>(
        'address_in_use',
        `${target.host}:${target.port} is already in use (another agentd?); choose another with --serve ${target.kind}://${target.host}:PORT or AGENTD_SERVE`,
        { cause: error },
      );
    }
    if (code === 'EADDRNOTAVAIL')
      throw new LocalError<AgentdErrorCode>(
        'address_unavailable',
        `${target.host} is not an address of this machine`,
        {
          cause: error,
        },
      );
    throw error;
  }
}

/**
 * The local operator token, created at the first start, is what `agentd ui` signs a browser in
 * with. A runtime dir that is not safely this user's means no sign-in, not no daemon.
 */
function dashboardSessions(logger: Logger): DashboardSessions | undefined {
  const file = operatorTokenPath();
  try {
    ensureOperatorToken(file);
    return new DashboardSessions(file);
  } catch (error) {
    logger.warn('dashboard sign-in is off: cannot keep the operator token', { file, error: String(error) });
    return undefined;
  }
}

/** A listener on every interface is browsed on this machine through loopback. */
function browsable(href: string): string {
  const url = new URL(href);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.href;
}

function listenStdio(target: Extract<ServeTarget, { kind: 'stdio' }>, ctx: ListenContext): Listener {
  const handle = openStdio(ctx.core, connectionOptions(ctx.config));
  handle.closed.then(ctx.onStdioEnd, (error: unknown) => {
    ctx.logger.error('stdio transport failed', { error: String(error) });
    ctx.onStdioEnd();
  });
  // A drain answers in-flight stdio requests and ends listen streams before stdout closes.
  return { target, address: 'stdio', close: (deadlineMs) => handle.shutdown(deadlineMs) };
}

export async function startListener(target: ServeTarget, ctx: ListenContext): Promise<Listener> {
  switch (target.kind) {
    case 'unix':
      return listenUnix(target, ctx);
    case 'vsock':
      return listenVsock(target, ctx);
    case 'http':
    case 'https':
      return listenHttp(target, ctx);
    case 'stdio':
      return listenStdio(target, ctx);
  }
}

/** `auth.oauth` as the transport's resource server: JWTs from the issuer, audience = this resource. */
function oauthOf(config: AgentdConfig['auth']['oauth'], operationScopes: Record<string, string[]>) {
  if (config === undefined) return undefined;
  // Advertised (RFC 9728 scopes_supported): what every request needs plus what operations need.
  const supported = [
    ...new Set([...(config.requiredScopes ?? []), ...Object.values(operationScopes).flat()]),
  ];
  return {
    verifyToken: createJwtVerifier({
      issuer: config.issuer,
      audience: config.audience,
      jwksUri: config.jwksUri,
    }),
    authorizationServers: [config.issuer],
    resource: config.audience,
    ...(config.requiredScopes === undefined ? {} : { requiredScopes: config.requiredScopes }),
    ...(supported.length === 0 ? {} : { scopesSupported: supported }),
  };
}

/** The configured per-connection limits of the NDJSON transports (the server-wide input budget is the core's). */
function connectionOptions(config: AgentdConfig): ServeConnectionOptions {
  const { maxBufferedInputBytes: _serverWide, ...perConnection } = config.connections;
  return perConnection;
}
