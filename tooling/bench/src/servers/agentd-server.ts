/** agentd's stack on the workload: createServerCore + Dispatcher (classic tools, or Code Mode operations) on one transport. */
import { Dispatcher } from '@agentd/dispatch';
import { createServerCore, type ServerCore, serveStdio, silentLogger } from '@agentd/server';
import { CATALOGUE, inputSchemaOf, type Operation } from '../catalogue.js';
import { CatalogueStore } from '../catalogue-store.js';
import type { ServerLaunch } from './launch.js';

/** Code Mode operation kinds: reads are queries, writes commands, watch a view. */
const KIND_OF: Readonly<Record<Operation, 'query' | 'command' | 'view'>> = {
  get: 'query',
  list: 'query',
  count: 'query',
  search: 'query',
  create: 'command',
  update: 'command',
  delete: 'command',
  watch: 'view',
};

function buildDispatcher(exposure: 'classic' | 'codemode'): Dispatcher {
  const store = new CatalogueStore();
  const dispatcher = new Dispatcher({ exposure, logger: silentLogger });
  for (const tool of CATALOGUE) {
    const handler = (args: Record<string, unknown>) => store.call(tool.name, args);
    if (exposure === 'classic') {
      dispatcher.registerTool({
        name: tool.name,
        description: tool.description,
        inputSchema: inputSchemaOf(tool),
        handler,
      });
    } else {
      dispatcher.registerOperation({
        kind: KIND_OF[tool.op],
        id: `${tool.entity}.${tool.op}`,
        description: tool.description,
        args: inputSchemaOf(tool),
        outputType: 'string',
        handler,
      });
    }
  }
  return dispatcher;
}

function buildCore(exposure: 'classic' | 'codemode'): ServerCore {
  const dispatcher = buildDispatcher(exposure);
  return createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'agentd-bench', version: '0.0.0' },
    logger: silentLogger,
  });
}

export async function launchAgentd(launch: ServerLaunch): Promise<void> {
  const core = buildCore(launch.impl === 'agentd-codemode' ? 'codemode' : 'classic');
  if (launch.transport === 'stdio') {
    await serveStdio(core);
    await core.close();
    return;
  }
  // Each transport is imported when used, as an application serving only one would: cold start and
  // RSS are then the stack's own.
  if (launch.transport === 'unix') {
    const { bindUnix, serveUnix } = await import('@agentd/transport-unix');
    const listener = await bindUnix(launch.socketPath);
    const server = serveUnix(listener, core);
    launch.ready({});
    await launch.stopped;
    await server.close(100);
    return;
  }
  if (launch.impl === 'agentd-fetch') {
    await serveFetch(core, launch);
    return;
  }
  if (launch.impl === 'agentd-bun') {
    await serveBun(core, launch);
    return;
  }
  const { serveHttp } = await import('@agentd/transport-http/node');
  const transport = await serveHttp(core, { host: '127.0.0.1', port: 0 });
  launch.ready({ port: transport.address.port });
  await launch.stopped;
  await transport.close(100);
}

/** The fetch handler on Node, the way users run one there: `@hono/node-server`. */
async function serveFetch(core: ServerCore, launch: ServerLaunch): Promise<void> {
  const { serve } = await import('@hono/node-server');
  const { createFetchHandler } = await import('@agentd/transport-http');
  const handler = createFetchHandler(core);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: handler, hostname: '127.0.0.1', port: 0 }, (info) => {
      launch.ready({ port: info.port });
      resolve(started);
    });
  });
  await launch.stopped;
  await handler.close(100);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    idleTimeout: number;
    fetch: (request: Request) => Promise<Response>;
  }): { port: number; stop(closeActive?: boolean): void };
};

/** The fetch handler under Bun's own HTTP server (this process is run by the bun binary). */
async function serveBun(core: ServerCore, launch: ServerLaunch): Promise<void> {
  const { createFetchHandler } = await import('@agentd/transport-http');
  const handler = createFetchHandler(core);
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: handler });
  launch.ready({ port: server.port });
  await launch.stopped;
  await handler.close(100);
  server.stop(true);
}
