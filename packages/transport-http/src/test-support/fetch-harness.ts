/** The same test server as `startHarness`, served through `createFetchHandler` behind `@hono/node-server`. */
import type { AddressInfo } from 'node:net';
import { createServerCore, type ServerCore, silentLogger } from '@agentd/server';
import { type ToolHandlerOptions, toolHandler } from '@agentd/test-support';
import { serve } from '@hono/node-server';
import { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from '../index.js';

export interface FetchHarness {
  core: ServerCore;
  handler: FetchHandler;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startFetchHarness(
  options: FetchHandlerOptions = {},
  hooks: ToolHandlerOptions = {},
): Promise<FetchHarness> {
  const core = createServerCore({
    handler: toolHandler(hooks),
    serverInfo: { name: 'transport-http-test', version: '1.0.0' },
    logger: silentLogger,
  });
  const handler = createFetchHandler(core, options);
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve({ fetch: handler, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        resolve({ server, port: info.port }),
      );
    },
  );
  return {
    core,
    handler,
    port,
    url: `http://localhost:${port}${options.path ?? '/mcp'}`,
    async close() {
      await handler.close(1_000);
      await core.close();
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
