/**
 * examples/mcp-app as a real process, in both eras: the official SDK client over stdio for a
 * legacy session (with and without the MCP Apps extension), `npm start` answering 2026-07-28
 * requests on stdio, and `--http` answering one over HTTP, as the README says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EXAMPLE_DIR as here,
  type Json,
  modernPeer,
  SERVER,
  startChild,
  UI_CAPS,
} from './test-support/child-peers.js';

const VIEW = 'ui://forecast/view.html';
const SKILL = 'skill://reading-forecasts/SKILL.md';
const UI = 'io.modelcontextprotocol/ui';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function sdkClient(capabilities: Json): Promise<Client> {
  const client = new Client({ name: 'example-test', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' }),
  );
  cleanups.push(() => client.close());
  return client;
}

function started(command: string, args: string[]) {
  const { child, stop } = startChild(command, args);
  cleanups.push(stop);
  return child;
}

describe('examples/mcp-app', () => {
  it('legacy session (official SDK client over stdio): the app, its app-only tool and the skill', async () => {
    const client = await sdkClient(UI_CAPS);
    expect(client.getServerCapabilities()?.extensions).toEqual({
      [UI]: {},
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['refresh_forecast', 'show_forecast']);
    const show = tools.find((t) => t.name === 'show_forecast');
    expect(show?._meta).toEqual({ ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW });
    const view = await client.readResource({ uri: VIEW });
    expect(view.contents[0]).toMatchObject({
      uri: VIEW,
      mimeType: 'text/html;profile=mcp-app',
      _meta: { ui: { prefersBorder: true } },
    });
    expect((view.contents[0] as Json | undefined)?.text).toBe(
      readFileSync(join(here, 'app', 'forecast.html'), 'utf8'),
    );
    const result = await client.callTool({ name: 'show_forecast', arguments: { city: 'Oslo' } });
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Forecast for Oslo: today /) },
    ]);
    expect(result.structuredContent).toMatchObject({ city: 'Oslo', days: expect.any(Array) });
    const refreshed = await client.callTool({ name: 'refresh_forecast', arguments: { city: 'Oslo' } });
    expect(refreshed.structuredContent).toMatchObject({ days: (result.structuredContent as Json).days });

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([SKILL, VIEW]);
    const skill = await client.readResource({ uri: SKILL });
    expect(skill.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect((skill.contents[0] as Json | undefined)?.text).toMatch(
      /^---\nname: reading-forecasts\ndescription: /,
    );
  }, 60_000);

  it('a host without MCP Apps: the app-only tool does not exist, show_forecast answers in text', async () => {
    const client = await sdkClient({});
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['show_forecast']);
    const result = await client.callTool({ name: 'show_forecast', arguments: { city: 'Bergen' } });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Forecast for Bergen: /) }]);
    const hidden = await client.callTool({ name: 'refresh_forecast', arguments: { city: 'Bergen' } }).then(
      (answer) => JSON.stringify(answer),
      (error: unknown) => String(error),
    );
    expect(hidden).toMatch(/Unknown tool: refresh_forecast/);
  }, 60_000);

  it('`npm start` answers 2026-07-28 requests on stdio', async () => {
    const start = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).scripts.start;
    expect(start).toBe('node server.mjs');
    const send = modernPeer(started('npm', ['--silent', 'start']));
    const discover = (await send('server/discover', {})).result as Json;
    expect(discover.capabilities).toMatchObject({
      extensions: { [UI]: {}, 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
    const listed = (await send('tools/list', {})).result as Json;
    expect((listed.tools as Json[]).map((t) => t.name).sort()).toEqual(['refresh_forecast', 'show_forecast']);
    const bare = (await send('tools/list', {}, {})).result as Json;
    expect((bare.tools as Json[]).map((t) => t.name)).toEqual(['show_forecast']);
    const call = (await send('tools/call', { name: 'show_forecast', arguments: { city: 'Oslo' } }))
      .result as Json;
    expect(call).toMatchObject({ resultType: 'complete', content: [{ type: 'text' }] });
    const read = (await send('resources/read', { uri: VIEW })).result as Json;
    expect(read).toMatchObject({
      resultType: 'complete',
      contents: [{ uri: VIEW, mimeType: 'text/html;profile=mcp-app' }],
    });
    const skill = (await send('resources/read', { uri: SKILL })).result as Json;
    expect((skill.contents as Json[])[0]).toMatchObject({ uri: SKILL, mimeType: 'text/markdown' });
  }, 60_000);

  it('--http serves the same server over HTTP (2026-07-28 POST)', async () => {
    const child = started(process.execPath, [SERVER, '--http', '0']);
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('listening ')) resolve(line.slice('listening '.length));
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-method': 'tools/list',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': UI_CAPS,
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(((body.result as Json).tools as Json[]).map((t) => t.name).sort()).toEqual([
      'refresh_forecast',
      'show_forecast',
    ]);
  }, 60_000);
});
