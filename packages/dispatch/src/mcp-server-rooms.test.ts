/**
 * The front door opens every room: an McpServer registers MCP Apps itself (and the helpers take
 * it as they take a Dispatcher), driven by the official v2 client over stdio pipes;
 * what a server author throws or checks comes from the same import; a raw zod shape says how to
 * wrap it.
 */
import { PassThrough } from 'node:stream';
import { ErrorCode as LifecycleErrorCode } from '@agentd/lifecycle';
import { LocalError as FrameLocalError, WireError as FrameWireError } from '@agentd/rpc-frame';
import { streamTransport } from '@agentd/test-support';
import { Client, ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as apps from './apps.js';
import * as dispatch from './index.js';
import { McpServer } from './mcp-server.js';
import { stdio } from './server-transport.js';
import { createTestClient } from './testing.js';

const FRAMING = { ReadBuffer, serializeMessage };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const HTML = '<!doctype html><html><body>weather</body></html>';
const VIEW = 'ui://weather/view.html';
const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

function newServer(): McpServer {
  const server = new McpServer({ name: 'rooms', version: '1.0.0' }, { logger: silent });
  opened.push(server);
  return server;
}

async function overStdio(server: McpServer): Promise<Client> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  await server.connect(stdio({ stdin: toServer, stdout: fromServer }));
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(streamTransport(fromServer, FRAMING, toServer));
  opened.unshift(client);
  return client;
}

async function expectAppServed(server: McpServer): Promise<void> {
  const client = await overStdio(server);
  const { resources } = await client.listResources();
  expect(resources).toContainEqual(
    expect.objectContaining({ uri: VIEW, mimeType: 'text/html;profile=mcp-app' }),
  );
  expect(await client.readResource({ uri: VIEW })).toMatchObject({ contents: [{ uri: VIEW, text: HTML }] });
  const { tools } = await client.listTools();
  expect(tools.find((tool) => tool.name === 'get_weather')?._meta).toMatchObject({
    ui: { resourceUri: VIEW },
  });
  expect(await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })).toMatchObject({
    structuredContent: { city: 'Oslo', celsius: 21 },
  });
  expect(client.getServerCapabilities()?.extensions).toHaveProperty(['io.modelcontextprotocol/ui']);
}

describe('McpServer opens every room', () => {
  it('registers an MCP App with server.registerAppResource and server.registerAppTool', async () => {
    const server = newServer();
    server.registerAppResource('weather_view', VIEW, { ui: { prefersBorder: true } }, HTML);
    server.registerAppTool(
      'get_weather',
      {
        description: 'Current weather',
        inputSchema: z.object({ city: z.string() }),
        ui: { resourceUri: VIEW },
      },
      ({ city }) => ({ city, celsius: 21 }),
    );
    await expectAppServed(server);
  });

  it('takes the McpServer in the registerAppResource / registerAppTool helpers', async () => {
    const server = newServer();
    apps.registerAppResource(server, { uri: VIEW, name: 'weather_view', html: HTML });
    apps.registerAppTool(server, {
      name: 'get_weather',
      description: 'Current weather',
      inputSchema: z.object({ city: z.string() }),
      ui: { resourceUri: VIEW },
      handler: ({ city }) => ({ city, celsius: 21 }),
    });
    await expectAppServed(server);
  });

  it('refuses a first argument that is neither an McpServer nor a Dispatcher, saying so', () => {
    const definition = { uri: VIEW, name: 'v', html: HTML };
    expect(() => apps.registerAppResource({} as McpServer, definition)).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: 'registerAppResource takes an McpServer or a Dispatcher as its first argument',
      }),
    );
  });

  it("points ext-apps' positional form at the McpServer methods", () => {
    const server = newServer();
    const positional = apps.registerAppResource as unknown as (...args: unknown[]) => unknown;
    expect(() => positional(server, 'weather_view', VIEW, {}, () => HTML)).toThrow(
      /takes one definition object .*server\.registerAppResource\(name, uri, config, html\)/,
    );
    const tool = apps.registerAppTool as unknown as (...args: unknown[]) => unknown;
    expect(() => tool(server, 'get_weather', { ui: { resourceUri: VIEW } }, () => 'x')).toThrow(
      /server\.registerAppTool\(name, config, handler\)/,
    );
  });
});

describe('createTestClient', () => {
  it('takes the McpServer itself', async () => {
    const server = newServer();
    server.registerTool('greet', { description: 'Greets' }, () => 'hi');
    const client = await createTestClient(server);
    opened.unshift(client);
    expect((await client.callTool('greet', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});

describe('@agentd/dispatch exports what a server author throws or checks', () => {
  it('re-exports WireError and LocalError of @agentd/rpc-frame and ErrorCode of @agentd/lifecycle', () => {
    expect(dispatch.WireError).toBe(FrameWireError);
    expect(dispatch.LocalError).toBe(FrameLocalError);
    expect(dispatch.ErrorCode).toBe(LifecycleErrorCode);
    expect(dispatch.ErrorCode.InvalidParams).toBe(-32602);
    expect(dispatch.ErrorCode.MissingRequiredClientCapability).toBe(-32021);
  });

  it('a WireError thrown by middleware reaches the client as its code and message', async () => {
    const server = newServer();
    server.registerTool('greet', { description: 'Greets' }, () => 'hi');
    server.use((ctx, next) => {
      if (ctx.method === 'tools/call')
        throw new dispatch.WireError(dispatch.ErrorCode.InvalidRequest, 'This server needs a tenant claim');
      return next();
    });
    const client = await overStdio(server);
    await expect(client.callTool({ name: 'greet', arguments: {} })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining('This server needs a tenant claim'),
    });
  });
});

describe('a raw zod shape (the official SDK v1 habit)', () => {
  const wrap =
    /is a raw shape \(property "name" is a zod schema\), the official SDK v1 habit: wrap it in `z\.object\(\{\.\.\.\}\)`/;

  it('is refused as a tool inputSchema or outputSchema, saying to wrap it in z.object({...})', () => {
    const server = newServer();
    expect(() =>
      server.registerTool('greet', { description: 'Greets', inputSchema: { name: z.string() } }, () => 'hi'),
    ).toThrow(expect.objectContaining({ code: 'invalid_schema', message: expect.stringMatching(wrap) }));
    expect(() =>
      server.registerTool('greet', { description: 'Greets', outputSchema: { name: z.string() } }, () => ({
        name: 'x',
      })),
    ).toThrow(wrap);
    expect(server.dispatcher.capabilities().tools).toBeUndefined();
  });

  it('is refused as a prompt argsSchema and as operation args', () => {
    const server = newServer();
    expect(() =>
      server.registerPrompt('review', { description: 'Review', argsSchema: { name: z.string() } }, () => 'x'),
    ).toThrow(wrap);
    expect(() =>
      server.registerOperation({
        kind: 'query',
        id: 'find',
        description: 'Finds',
        args: { name: z.string() },
        handler: () => 1,
      }),
    ).toThrow(wrap);
  });

  it('still accepts a JSON Schema whose property is called like a zod value would be', () => {
    const server = newServer();
    server.registerTool(
      'plain',
      { description: 'Plain', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      () => 'ok',
    );
    expect(server.dispatcher.capabilities().tools).toBeDefined();
  });
});
