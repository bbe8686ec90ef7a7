/**
 * McpServer, the front door, driven by the official v2 client: registration in the SDK's shape,
 * list_changed pushed without any wiring, and serving on stdio (pipes), a unix socket and HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { streamTransport } from '@agentd/test-support';
import {
  Client,
  ReadBuffer,
  StreamableHTTPClientTransport,
  serializeMessage,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from './mcp-server.js';
import { optionalPeer } from './optional-peers.js';
import { http, stdio, unix } from './server-transport.js';
import { UriTemplate } from './uri-template.js';

/** The official v2 client's own NDJSON framing, for its Transport over streams. */
const FRAMING = { ReadBuffer, serializeMessage };

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

function demo(): McpServer {
  const server = new McpServer({ name: 'demo', version: '1.0.0' }, { logger: silent });
  server.registerTool(
    'greet',
    { description: 'Greets someone', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => `Hello, ${name}!`,
  );
  server.registerResource(
    'readme',
    'docs://readme',
    { description: 'The readme', mimeType: 'text/plain' },
    () => 'read me',
  );
  server.registerResource(
    'note',
    new UriTemplate('notes://{id}'),
    { description: 'One note' },
    (_uri, variables) => `note ${String(variables.id)}`,
  );
  server.registerPrompt(
    'review',
    { description: 'Asks for a review', argsSchema: z.object({ topic: z.string() }) },
    ({ topic }) => `Review ${topic}, please.`,
  );
  server.registerOperation({
    kind: 'query',
    id: 'servers',
    description: 'Lists servers',
    outputType: 'string[]',
    handler: () => ['alpha'],
  });
  return server;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function overStdio(server: McpServer): Promise<Client> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  await server.connect(stdio({ stdin: toServer, stdout: fromServer }));
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(streamTransport(fromServer, FRAMING, toServer));
  opened.push(client, server);
  return client;
}

describe('McpServer', () => {
  it('serves tools, operations, resources, templates and prompts registered in the SDK shape', async () => {
    const client = await overStdio(demo());
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['greet', 'query_servers']);
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    const refused = await client.callTool({ name: 'greet', arguments: { name: 7 } });
    expect(refused.isError).toBe(true);
    expect(await client.readResource({ uri: 'docs://readme' })).toMatchObject({
      contents: [{ uri: 'docs://readme', text: 'read me' }],
    });
    expect(await client.readResource({ uri: 'notes://42' })).toMatchObject({
      contents: [{ text: 'note 42' }],
    });
    const prompt = await client.getPrompt({ name: 'review', arguments: { topic: 'the plan' } });
    expect(JSON.stringify(prompt.messages)).toContain('Review the plan, please.');
  });

  it('pushes tools/list_changed by itself when a tool is added while serving', async () => {
    const server = demo();
    const client = await overStdio(server);
    await client.listTools();
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
    );
    server.registerTool('late', { description: 'Added while serving' }, () => 'late');
    await changed;
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('late');
  });

  it('serves the same server on a unix socket and on Streamable HTTP at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-server-'));
    opened.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
    const server = demo();
    opened.push(server);
    const overHttp = await server.connect(http());
    expect(overHttp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const path = join(dir, 'mcp.sock');
    const overUnix = await server.connect(unix(path));
    expect(overUnix.url).toBe(path);

    const web = new Client({ name: 'web', version: '1' });
    await web.connect(new StreamableHTTPClientTransport(new URL(overHttp.url as string)));
    opened.push(web);
    expect(await web.callTool({ name: 'greet', arguments: { name: 'web' } })).toMatchObject({
      content: [{ text: 'Hello, web!' }],
    });

    const socket = net.connect(path);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const local = new Client({ name: 'local', version: '1' });
    await local.connect(streamTransport(socket, FRAMING));
    opened.push(local);
    expect(await local.callTool({ name: 'greet', arguments: { name: 'unix' } })).toMatchObject({
      content: [{ text: 'Hello, unix!' }],
    });

    // close() stops both transports: their `closed` promises settle and the socket file is gone.
    await server.close(1_000);
    await Promise.all([overUnix.closed, overHttp.closed]);
    await expect(
      new Promise((resolve, reject) => net.connect(path).once('connect', resolve).once('error', reject)),
    ).rejects.toMatchObject({ code: expect.stringMatching(/ENOENT|ECONNREFUSED/) });
  });

  it('names the package to install when an optional peer is missing', async () => {
    await expect(optionalPeer('@agentd/no-such-transport/node', 'a test transport')).rejects.toMatchObject({
      code: 'missing_dependency',
      message: 'a test transport needs @agentd/no-such-transport: npm install @agentd/no-such-transport',
    });
  });
});
