/**
 * What `McpServer.connect` serves on: stdio (built in), a unix socket and Streamable HTTP. The
 * socket and HTTP transports are optional peer packages, imported only when asked for, so a stdio
 * server installs neither.
 */
import type { AddressInfo, Server as NetServer } from 'node:net';
import { openStdio, type ServerCore, type ServeStdioOptions } from '@agentd/server';
import { optionalPeer } from './optional-peers.js';

/** A transport serving one server core; `McpServer.connect(transport)` starts it. */
export interface ServerTransport {
  /** Starts serving `core`; resolves once it accepts messages. */
  start(core: ServerCore): Promise<ServedTransport>;
}

export interface ServedTransport {
  /** Where clients reach it (`http://127.0.0.1:3000/mcp`, the socket path); undefined for stdio. */
  readonly url: string | undefined;
  /** Resolves once the transport stopped (stdin ended, or `close()` finished). */
  readonly closed: Promise<void>;
  /** Stops accepting, lets requests in flight finish for up to `deadlineMs`, then cuts. */
  close(deadlineMs?: number): Promise<void>;
}

const DRAIN_MS = 5_000;

/** The process's stdin/stdout, one JSON-RPC message per line (stdout carries protocol only). */
export function stdio(options: ServeStdioOptions = {}): ServerTransport {
  return {
    async start(core) {
      const handle = openStdio(core, options);
      return {
        url: undefined,
        closed: handle.closed,
        close: async (deadlineMs = DRAIN_MS) => {
          await handle.shutdown(deadlineMs);
          await handle.closed;
        },
      };
    },
  };
}

/** Options of `unix()`: the socket file's mode (default 0600, owner only). */
export interface UnixTransportOptions {
  mode?: number;
}

interface UnixModule {
  bindUnix(path: string, options?: { mode?: number }): Promise<NetServer>;
  serveUnix(listener: NetServer, core: ServerCore): { close(deadlineMs?: number): Promise<void> };
}

/** A unix domain socket (or Windows named pipe) at `path`; needs `@agentd/transport-unix`. */
export function unix(path: string, options: UnixTransportOptions = {}): ServerTransport {
  return {
    async start(core) {
      const module = await optionalPeer<UnixModule>('@agentd/transport-unix', 'a unix socket transport');
      const listener = await module.bindUnix(path, options.mode === undefined ? {} : { mode: options.mode });
      return served(path, module.serveUnix(listener, core));
    },
  };
}

/** Options of `http()`: where to listen (default 127.0.0.1, a free port) and transport-http's options. */
export interface HttpTransportOptions {
  port?: number;
  host?: string;
  /** The endpoint's path (default `/mcp`). */
  path?: string;
  /** Anything else `createHttpTransport` of `@agentd/transport-http/node` takes (auth, allowedHosts, …). */
  [option: string]: unknown;
}

interface HttpModule {
  createHttpTransport(
    core: ServerCore,
    options: Record<string, unknown>,
  ): {
    listen(port?: number, host?: string): Promise<AddressInfo>;
    close(deadlineMs?: number): Promise<void>;
  };
}

/** Streamable HTTP (both protocol eras on one endpoint); needs `@agentd/transport-http`. */
export function http(options: HttpTransportOptions = {}): ServerTransport {
  const { port, host, ...rest } = options;
  return {
    async start(core) {
      const module = await optionalPeer<HttpModule>('@agentd/transport-http/node', 'an HTTP transport');
      const transport = module.createHttpTransport(core, rest);
      const address = await transport.listen(port ?? 0, host ?? '127.0.0.1');
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return served(`http://${shown}:${address.port}${options.path ?? '/mcp'}`, transport);
    },
  };
}

function served(url: string, server: { close(deadlineMs?: number): Promise<void> }): ServedTransport {
  let stopped: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  return {
    url,
    closed,
    close: async (deadlineMs = DRAIN_MS) => {
      await server.close(deadlineMs);
      stopped();
    },
  };
}
