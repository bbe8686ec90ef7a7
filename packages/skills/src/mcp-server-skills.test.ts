/**
 * Skills on the front door: `registerSkill` and `serveSkillsFolder` take an McpServer as they take
 * a Dispatcher, driven by the official v2 client over stdio pipes; a folder closes with the server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { McpServer, stdio } from '@agentd/dispatch';
import { silentLogger } from '@agentd/rpc-frame';
import { streamTransport } from '@agentd/test-support';
import { Client, ReadBuffer, serializeMessage } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSkill } from './index.js';
import { serveSkillsFolder } from './node.js';

const FRAMING = { ReadBuffer, serializeMessage };
const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

function newServer(): McpServer {
  const server = new McpServer({ name: 'skills', version: '1.0.0' }, { logger: silentLogger });
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

function skillsFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-server-skills-'));
  opened.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
  mkdirSync(join(dir, 'reading'));
  writeFileSync(
    join(dir, 'reading', 'SKILL.md'),
    '---\nname: reading\ndescription: How to read\n---\n# Read\n',
  );
  return dir;
}

describe('skills on an McpServer', () => {
  it('registers a skill and serves a skills folder, and closes the folder with the server', async () => {
    const server = newServer();
    registerSkill(server, {
      path: 'greeting',
      files: { 'SKILL.md': '---\nname: greeting\ndescription: How to greet\n---\n# Hi\n' },
    });
    const folder = await serveSkillsFolder(server, skillsFolder(), { watch: false });
    expect(folder.skills).toEqual(['skill://reading/SKILL.md']);
    const client = await overStdio(server);
    expect(client.getServerCapabilities()?.extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris).toEqual(expect.arrayContaining(['skill://greeting/SKILL.md', 'skill://reading/SKILL.md']));
    expect(await client.readResource({ uri: 'skill://reading/SKILL.md' })).toMatchObject({
      contents: [{ text: expect.stringContaining('# Read') }],
    });
    await client.close();
    await server.close();
    expect(folder.skills).toEqual([]);
  });

  it('a folder served on a server with no skill yet offers the extension and the resources', async () => {
    const server = newServer();
    const empty = mkdtempSync(join(tmpdir(), 'mcp-server-skills-empty-'));
    opened.push({ close: async () => rmSync(empty, { recursive: true, force: true }) });
    const folder = await serveSkillsFolder(server, empty, { watch: false });
    expect(folder.skills).toEqual([]);
    const client = await overStdio(server);
    expect(client.getServerCapabilities()).toMatchObject({
      resources: {},
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
    expect((await new SkillsClient(client).list()).skills).toEqual([]);
  });

  it('refuses a host that is neither an McpServer nor a Dispatcher', async () => {
    await expect(serveSkillsFolder({} as McpServer, skillsFolder())).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'serveSkillsFolder takes an McpServer or a Dispatcher as its first argument',
    });
  });
});
