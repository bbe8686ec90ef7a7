/**
 * The endpoint mounted inside real hosts: plain `node:http` (with a fallback), Express 5,
 * Fastify 5 and Hono on Node, each next to a route of its own, driven by the official client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerCore, type ServerCore, silentLogger } from '@agentd/server';
import { toolHandler } from '@agentd/test-support';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchHandler } from './index.js';
import { createNodeHandler } from './node.js';

function makeCore(): ServerCore {
  return createServerCore({
    handler: toolHandler(),
    serverInfo: { name: 'mounted', version: '1.0.0' },
    logger: silentLogger,
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stopServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The host's own route answers, and the official client works through the mounted endpoint. */
async function expectMounted(base: string, mcpPath: string): Promise<void> {
  const health = await fetch(`${base}/health`);
  expect(health.status).toBe(200);
  expect(await health.text()).toContain('ok');
  const client = new Client({ name: 'mount-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${mcpPath}`)));
  const result = await client.callTool({ name: 'echo', arguments: { text: 'mounted' } });
  expect(result.content).toEqual([{ type: 'text', text: 'mounted' }]);
  await client.close();
}

describe('createNodeHandler and createFetchHandler inside hosts', () => {
  it('node:http: other paths go to next(), or 404 without one', async () => {
    const core = makeCore();
    const mcp = createNodeHandler(core);
    const server = createServer((req, res) =>
      mcp(req, res, () => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }),
    );
    const bare = createServer((req, res) => mcp(req, res));
    const port = await listen(server);
    const barePort = await listen(bare);
    cleanups.push(async () => {
      await mcp.close(500);
      await stopServer(server);
      await stopServer(bare);
      await core.close();
    });
    await expectMounted(`http://localhost:${port}`, '/mcp');
    const missing = await fetch(`http://localhost:${barePort}/elsewhere`);
    expect(missing.status).toBe(404);
    await missing.text();
  });

  it('Express 5: app.use(mcp) beside a route; a mount path works through originalUrl', async () => {
    const core = makeCore();
    const mcp = createNodeHandler(core, { path: '/api/mcp' });
    const app = express();
    app.get('/health', (_req, res) => {
      res.send('ok');
    });
    app.use('/api', mcp);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    cleanups.push(async () => {
      await mcp.close(500);
      await stopServer(server);
      await core.close();
    });
    await expectMounted(`http://localhost:${(server.address() as AddressInfo).port}`, '/api/mcp');
  });

  it('Fastify 5: a raw-body scope with reply.hijack()', async () => {
    const core = makeCore();
    const mcp = createNodeHandler(core);
    const app = Fastify();
    app.get('/health', async () => 'ok');
    await app.register(async (scope) => {
      // The endpoint reads the body itself: no parsing in this scope.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.all('/mcp', (request, reply) => {
        reply.hijack();
        mcp(request.raw, reply.raw);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(async () => {
      await mcp.close(500);
      await app.close();
      await core.close();
    });
    await expectMounted(`http://localhost:${(app.server.address() as AddressInfo).port}`, '/mcp');
  });

  it('Hono on Node: app.all(path, c => fetchHandler(c.req.raw))', async () => {
    const core = makeCore();
    const mcp = createFetchHandler(core);
    const app = new Hono();
    app.get('/health', (c) => c.text('ok'));
    app.all('/mcp', (c) => mcp(c.req.raw));
    const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
      (resolve) => {
        const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
          resolve({ server, port: info.port }),
        );
      },
    );
    cleanups.push(async () => {
      await mcp.close(500);
      await stopServer(server as Server);
      await core.close();
    });
    await expectMounted(`http://localhost:${port}`, '/mcp');
  });
});
