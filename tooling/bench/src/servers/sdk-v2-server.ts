/** The official SDK v2 (`@modelcontextprotocol/server` + `/node`) on the workload: stdio, sessions, and `createMcpHandler` (stateless). */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { CATALOGUE } from '../catalogue.js';
import { CatalogueStore } from '../catalogue-store.js';
import type { ServerLaunch } from './launch.js';
import { zodShape } from './zod-shape.js';

type ToolCallback = (args: Record<string, unknown>) => { content: { type: 'text'; text: string }[] };
type LooseRegister = (
  name: string,
  config: { description: string; inputSchema: unknown },
  cb: ToolCallback,
) => void;

function buildServer(store: CatalogueStore): McpServer {
  const server = new McpServer({ name: 'sdk-v2-bench', version: '0.0.0' });
  // The loose signature only spares the type checker 320 deep zod inferences.
  const register = server.registerTool.bind(server) as unknown as LooseRegister;
  for (const tool of CATALOGUE) {
    register(tool.name, { description: tool.description, inputSchema: z.object(zodShape(tool)) }, (args) => ({
      content: [{ type: 'text', text: store.call(tool.name, args) }],
    }));
  }
  return server;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return (http.address() as AddressInfo).port;
}

function statefulHandler(store: CatalogueStore): (req: IncomingMessage, res: ServerResponse) => void {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  return (req, res) => {
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing !== undefined) {
      void existing.handleRequest(req, res);
      return;
    }
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    void buildServer(store)
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  };
}

export async function launchSdkV2(launch: ServerLaunch): Promise<void> {
  const store = new CatalogueStore();
  if (launch.transport === 'stdio') {
    await buildServer(store).connect(new StdioServerTransport());
    await launch.stopped;
    return;
  }
  const handler =
    launch.transport === 'http-stateless'
      ? toNodeHandler(createMcpHandler(() => buildServer(store)))
      : statefulHandler(store);
  launch.ready({ port: await listen(handler as (req: IncomingMessage, res: ServerResponse) => void) });
  await launch.stopped;
}
