/** End to end over loopback HTTP: the official MCP SDK client, bearer auth, Code Mode chaining, both eras. */

import { type Json, modernMeta } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';

const TOKEN = 'e2e-bearer-token-0123456789abcdef';
let agentd: Agentd;
let client: Client;

beforeAll(async () => {
  agentd = await startAgentd({
    http: true,
    config: {
      auth: { bearerTokens: [{ name: 'e2e', token: TOKEN }] },
      agents: {
        ticker: {
          mode: 'plain',
          command: '/bin/sh',
          args: ['-c', 'echo "one {instruction}"; echo two >&2; echo three'],
        },
      },
    },
  });
  client = new Client({ name: 'agentd-e2e-sdk', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(agentd.httpUrl as string), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
});

afterAll(async () => {
  await client.close();
  await agentd.stop();
});

/** The value the `execute` tool returned. */
function executed(result: Json): Json {
  expect(result.isError).not.toBe(true);
  return (result.structuredContent as Json).result as Json;
}

describe('the official SDK client over HTTP', () => {
  it('sees Code Mode (search + execute) and the resources', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'agentd' });
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['execute', 'search']);
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toEqual(
      expect.arrayContaining(['agent://status', 'agent://inventory', 'agent://events']),
    );
    const status = await client.readResource({ uri: 'agent://status' });
    expect(JSON.parse(String((status.contents[0] as { text: string }).text))).toMatchObject({
      name: 'agentd',
      ready: true,
    });
  });

  it('chains subagent.spawn and subagent.status in one execute call', async () => {
    // No busy-wait in the sandbox (it has no timers and a host-call budget): a sync spawn, then its status.
    const code = `
      const done = await agentd.subagent.spawn({ instruction: 'count one two three' });
      const status = await agentd.subagent.status({ handle: done.handle });
      const started = await agentd.subagent.spawn({ instruction: 'sleep 300', async: true });
      return { first: started.state, final: status.state, output: status.output, same: status.handle === done.handle };`;
    const value = executed((await client.callTool({ name: 'execute', arguments: { code } })) as Json);
    expect(value).toMatchObject({ first: 'running', final: 'succeeded', output: '3 words', same: true });
  });

  it('receives the one-shot subagent update on its legacy session', async () => {
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const code = "return await agentd.subagent.spawn({ instruction: 'sleep 800', async: true });";
    const started = executed((await client.callTool({ name: 'execute', arguments: { code } })) as Json);
    const uri = `agent://subagent/${String(started.handle)}`;
    await client.subscribeResource({ uri });
    await vi.waitFor(() => expect(updates, 'the subagent’s resources/updated notification').toContain(uri), {
      timeout: 10_000,
      interval: 20,
    });
    expect(updates).toEqual([uri]);
    const read = await client.readResource({ uri });
    expect(JSON.parse(String((read.contents[0] as { text: string }).text))).toMatchObject({
      state: 'succeeded',
    });
  });

  it("streams a plain agent's lines as progress and log notifications to the official client", async () => {
    const progress: string[] = [];
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    await client.setLoggingLevel('info');
    const code = "return await agentd.subagent.spawn({ agent: 'ticker', instruction: 'go' });";
    const result = (await client.callTool({ name: 'execute', arguments: { code } }, undefined, {
      onprogress: (p) => {
        progress.push(String(p.message));
      },
    })) as Json;
    expect(executed(result)).toMatchObject({ state: 'succeeded', output: 'one go\nthree' });
    expect(progress).toEqual(['one go', 'three']);
    expect(logs).toContainEqual(expect.objectContaining({ event: 'started', agent: 'ticker' }));
    expect(logs).toContain('two');
  });

  it('surfaces refusals inside execute as errors the code can catch', async () => {
    const uncaught = "return await agentd.subagent.status({ handle: 'sa_missing' });";
    const result = (await client.callTool({ name: 'execute', arguments: { code: uncaught } })) as Json;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('(unknown_handle)');
    const caught = `try { await agentd.subagent.status({ handle: 'sa_missing' }); return 'no error'; }
      catch (error) { return { caught: String(error.message) }; }`;
    const value = executed((await client.callTool({ name: 'execute', arguments: { code: caught } })) as Json);
    expect(String(value.caught)).toContain('(unknown_handle)');
  });
});

describe('raw HTTP', () => {
  it('requires the bearer token and answers modern-era requests statelessly', async () => {
    const url = agentd.httpUrl as string;
    const body = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } };
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': 'server/discover',
      'mcp-protocol-version': '2026-07-28',
    };
    const anonymous = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(anonymous.status).toBe(401);
    const ok = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
    });
    expect(ok.status).toBe(200);
    const json = (await ok.json()) as Json;
    expect((json.result as Json).supportedVersions).toContain('2026-07-28');
  });
});

describe('unauthenticated loopback HTTP', () => {
  it('gets the restricted surface: no operator operations, no management resources', async () => {
    const open = await startAgentd({ http: true });
    const anonymous = new Client({ name: 'agentd-e2e-anonymous', version: '1.0.0' });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(open.httpUrl as string)));
    try {
      const uris = (await anonymous.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain('agent://status');
      expect(uris).not.toContain('agent://inventory');
      const found = (await anonymous.callTool({ name: 'search', arguments: { query: '' } })) as Json;
      const ids = ((found.structuredContent as Json).operations as Json[]).map((op) => op.id);
      expect(ids).toEqual(expect.arrayContaining(['status', 'subagent.spawn']));
      for (const id of ['drain', 'lame-duck', 'pause', 'resume', 'cancel']) expect(ids).not.toContain(id);
      // agent://capabilities tells the same story: a restricted peer cannot learn they exist.
      const read = await anonymous.readResource({ uri: 'agent://capabilities' });
      const capabilities = JSON.parse(String((read.contents[0] as { text: string }).text)) as Json;
      const listed = (capabilities.operations as Json[]).map((op) => op.id);
      expect(listed).toEqual(expect.arrayContaining(['status', 'subagent.spawn']));
      for (const id of ['drain', 'lame-duck', 'pause', 'resume', 'cancel']) expect(listed).not.toContain(id);
      const resources = (capabilities.resources as Json[]).map((r) => r.uri);
      expect(resources).toContain('agent://status');
      for (const uri of ['agent://inventory', 'agent://config/effective', 'agent://events'])
        expect(resources).not.toContain(uri);
      // The startup log does not call the anonymous listener a management one.
      const listening = open.logs.filter((l) => l.msg === 'listening');
      expect(listening.find((l) => String(l.address).startsWith('http'))).toMatchObject({
        trust: 'restricted',
      });
      expect(listening.find((l) => l.address === open.socket)).toMatchObject({ trust: 'management' });
      expect(listening.some((l) => 'origin' in l)).toBe(false);
    } finally {
      await anonymous.close();
      await open.stop();
    }
  });
});
