/** Serves the fixture on Node through one of the HTTP adapters: `serveHttp`, the fetch handler, or Express. */
import type { AddressInfo } from 'node:net';
import type { ServerCore } from '@agentd/server';
import { createFetchHandler, type McpHttpOptions } from '@agentd/transport-http';
import { createNodeHandler, serveHttp } from '@agentd/transport-http/node';
import { createEverythingApp } from './everything.js';

export type Adapter = 'node' | 'fetch' | 'express';
export const ADAPTERS: readonly Adapter[] = ['node', 'fetch', 'express'];

export interface EverythingServer {
  readonly core: ServerCore;
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ServeEverythingOptions extends McpHttpOptions {
  host?: string;
  port?: number;
  /** `node` (default): `serveHttp`; `fetch`: `createFetchHandler` behind `@hono/node-server`; `express`: `createNodeHandler` in an Express 5 app. */
  adapter?: Adapter;
}

interface Listening {
  readonly port: number;
  close(): Promise<void>;
}

async function listenFetch(
  app: ReturnType<typeof createEverythingApp>,
  options: McpHttpOptions,
  host: string,
  port: number,
): Promise<Listening> {
  const { serve } = await import('@hono/node-server');
  const handler = createFetchHandler(app.core, { toolParamHeaders: app.toolParamHeaders, ...options });
  return new Promise((resolve) => {
    const server = serve({ fetch: handler, hostname: host, port }, (info: AddressInfo) => {
      resolve({
        port: info.port,
        async close() {
          await handler.close(2_000);
          await new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
  });
}

async function listenExpress(
  app: ReturnType<typeof createEverythingApp>,
  options: McpHttpOptions,
  host: string,
  port: number,
): Promise<Listening> {
  const { default: express } = await import('express');
  const mcp = createNodeHandler(app.core, { toolParamHeaders: app.toolParamHeaders, ...options });
  const web = express();
  web.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  web.use(mcp);
  return new Promise((resolve) => {
    const server = web.listen(port, host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        async close() {
          await mcp.close(2_000);
          server.closeAllConnections();
          await new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
  });
}

export async function startEverythingServer(options: ServeEverythingOptions = {}): Promise<EverythingServer> {
  const { host = '127.0.0.1', port = 0, adapter = 'node', ...rules } = options;
  const app = createEverythingApp();
  let listening: Listening;
  if (adapter === 'fetch') listening = await listenFetch(app, rules, host, port);
  else if (adapter === 'express') listening = await listenExpress(app, rules, host, port);
  else {
    const transport = await serveHttp(app.core, {
      toolParamHeaders: app.toolParamHeaders,
      ...rules,
      host,
      port,
    });
    listening = { port: transport.address.port, close: () => transport.close(2_000) };
  }
  return {
    core: app.core,
    url: `http://localhost:${listening.port}${rules.path ?? '/mcp'}`,
    port: listening.port,
    async close() {
      await app.close();
      await listening.close();
    },
  };
}
