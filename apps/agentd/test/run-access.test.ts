/**
 * Issue 39, finding 1, as the adversarial peer: a run id names a run but never unlocks it. A
 * restricted peer that did not start a run cannot read it, subscribe to it, nor get its status or
 * cancel it by run id; its starter and operators can; the handle stays a capability.
 */
import { type Json, MODERN_META, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import {
  BEARER,
  httpRequest,
  httpTool,
  type MixedPeers,
  refusalText,
  startMixedPeers,
} from './support/mixed-peers.js';

let peers: MixedPeers;
let operator: NdjsonClient;
const sdkClients: Client[] = [];

beforeAll(async () => {
  peers = await startMixedPeers({
    exposure: 'classic',
    agents: {
      example: TEST_AGENT_CONFIG,
      // Says something (its live tail), then keeps running until cancelled.
      talker: { mode: 'plain', command: '/bin/sh', args: ['-c', 'echo "said {instruction}"; sleep 60'] },
    },
    // Room for every test's runs: the fair share has its own test.
    limits: { maxConcurrentRuns: 16, restrictedRunsPerPrincipal: 8 },
  });
  operator = await NdjsonClient.connect(peers.socket);
  await peers.stdio.initialize();
}, 30_000);

afterAll(async () => {
  for (const client of sdkClients) await client.close();
  operator?.stream.end();
  await peers?.stop();
});

async function anonymousSession(): Promise<Client> {
  const client = new Client({ name: 'run-access-anonymous', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(peers.httpUrl)));
  sdkClients.push(client);
  return client;
}

const stdioTool = async (name: string, args: Json) =>
  toolValue(await peers.stdio.legacy('tools/call', { name, arguments: args }));

/** The answer to reading `uri` over anonymous stateless HTTP, with the URI taken out so answers compare. */
async function anonymousRead(uri: string, id: string): Promise<string> {
  const body = await httpRequest(peers.httpUrl, 'resources/read', { uri });
  return JSON.stringify(body).replaceAll(id, '<id>');
}

/** A run that has ended (its output kept) and one that is running (its live tail), both started over stdio. */
async function stdioRuns(): Promise<{ ended: Json; live: Json }> {
  const ended = await stdioTool('command_subagent.spawn', { instruction: 'echo secret-of-stdio' });
  expect(ended).toMatchObject({ state: 'succeeded', output: 'secret-of-stdio' });
  const live = await stdioTool('command_subagent.spawn', {
    agent: 'talker',
    instruction: 'tail-secret',
    async: true,
  });
  // Its tail has the line once the agent printed it; the starter polls its own handle until then.
  for (;;) {
    const status = await stdioTool('query_subagent.status', { handle: live.handle });
    if (JSON.stringify(status.tail ?? []).includes('tail-secret')) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { ended, live };
}

describe('run data is its starter’s and operators’ only', () => {
  it('an anonymous HTTP peer reads another peer’s run id exactly like an id that never existed', async () => {
    const { ended, live } = await stdioRuns();
    const unknown = 'run_0000000000_doesnotexist';
    for (const run of [ended, live]) {
      const id = String(run.runId);
      const answer = await anonymousRead(`agent://run/${id}`, id);
      expect(answer).toBe(await anonymousRead(`agent://run/${unknown}`, unknown));
      expect(answer).not.toContain('secret');
      expect(answer).toMatch(/not found/i);
    }
    // The starter reads its own run by id; an operator (unix, and HTTP with the bearer token) too.
    const own = resourceValue(
      await peers.stdio.legacy('resources/read', { uri: `agent://run/${ended.runId}` }),
    );
    expect(own).toMatchObject({ output: 'secret-of-stdio', startedBy: { trust: 'restricted' } });
    expect(own.handle).toBeUndefined();
    const byOperator = resourceValue(
      await operator.modernResult('resources/read', { uri: `agent://run/${ended.runId}` }),
    );
    expect(byOperator).toMatchObject({ output: 'secret-of-stdio' });
    const liveByOperator = resourceValue(
      await operator.modernResult('resources/read', { uri: `agent://run/${live.runId}` }),
    );
    expect(JSON.stringify(liveByOperator.tail)).toContain('tail-secret');
    await stdioTool('command_subagent.cancel', { handle: live.handle });
  });

  it('an anonymous peer cannot subscribe to another’s run id; the starter can', async () => {
    const { live } = await stdioRuns();
    const attacker = await anonymousSession();
    const refused = await attacker.subscribeResource({ uri: `agent://run/${live.runId}` }).then(
      () => 'subscribed',
      (error: Error) => error.message.replaceAll(String(live.runId), '<id>'),
    );
    const unknown = await attacker.subscribeResource({ uri: 'agent://run/run_0000000000_nothing' }).then(
      () => 'subscribed',
      (error: Error) => error.message.replaceAll('run_0000000000_nothing', '<id>'),
    );
    expect(refused).not.toBe('subscribed');
    expect(refused).toBe(unknown);
    // The refusal is the one for an unknown resource, not a blanket one for anonymous peers.
    await attacker.subscribeResource({ uri: 'agent://capabilities' });
    // The starter may subscribe, and hears about the run's end.
    await peers.stdio.legacy('resources/subscribe', { uri: `agent://run/${live.runId}` });
    await stdioTool('command_subagent.cancel', { handle: live.handle });
    await peers.stdio.waitFor(
      (m) => m.method === 'notifications/resources/updated' && m.params?.uri === `agent://run/${live.runId}`,
    );
  });

  it('an anonymous peer cannot get the status of, attach to, nor cancel a run by its run id', async () => {
    const { live } = await stdioRuns();
    try {
      for (const name of ['query_subagent.status', 'query_subagent.attach', 'command_subagent.cancel']) {
        const text = refusalText(await httpTool(peers.httpUrl, name, { handle: live.runId }));
        expect(text).toContain('unknown_handle');
        expect(text).not.toContain('tail-secret');
      }
      // The run was not touched: an operator still sees it running.
      const status = toolValue(
        await operator.modernResult('tools/call', {
          name: 'query_subagent.status',
          arguments: { handle: live.handle },
        }),
      );
      expect(status.state).toBe('running');
    } finally {
      await operator.modernResult('tools/call', {
        name: 'command_cancel',
        arguments: { handle: live.handle },
      });
    }
  });

  it('the handle stays a capability: whoever holds it may read and act on the run', async () => {
    const { live } = await stdioRuns();
    const status = toolValue(await httpTool(peers.httpUrl, 'query_subagent.status', { handle: live.handle }));
    expect(JSON.stringify(status.tail)).toContain('tail-secret');
    const cancelled = toolValue(
      await httpTool(peers.httpUrl, 'command_subagent.cancel', { handle: live.handle }),
    );
    expect(cancelled.state).toBe('cancelled');
  });

  it('one anonymous session reads its own run by id; another anonymous session cannot', async () => {
    const starter = await anonymousSession();
    const other = await anonymousSession();
    const spawned = (await starter.callTool({
      name: 'command_subagent.spawn',
      arguments: { instruction: 'echo secret-of-a-session' },
    })) as Json;
    const run = toolValue(spawned);
    const uri = `agent://run/${run.runId}`;
    const own = await starter.readResource({ uri });
    expect(JSON.stringify(own)).toContain('secret-of-a-session');
    const theirs = await other.readResource({ uri }).then(
      (result) => JSON.stringify(result),
      (error: Error) => `refused: ${error.message}`,
    );
    expect(theirs).toMatch(/^refused: /);
    expect(theirs).not.toContain('secret-of-a-session');
    // The principal is a digest: the status never carries the session id.
    const sessionId = (starter.transport as StreamableHTTPClientTransport).sessionId as string;
    expect(JSON.stringify(run)).not.toContain(sessionId);
  });
});

/** A raw 2025-11-25 session over HTTP that declares tasks: posts JSON-RPC and answers the parsed body. */
async function legacyTaskSession(url: string): Promise<(method: string, params: Json) => Promise<Json>> {
  let sessionId: string | null = null;
  let id = 0;
  const post = async (body: Json): Promise<Json> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId === null ? {} : { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }),
      },
      body: JSON.stringify(body),
    });
    sessionId ??= response.headers.get('mcp-session-id');
    const text = await response.text();
    return text === '' ? {} : (JSON.parse(text) as Json);
  };
  await post({
    jsonrpc: '2.0',
    id: ++id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { tasks: {} },
      clientInfo: { name: 'tasks', version: '1' },
    },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return (method, params) => post({ jsonrpc: '2.0', id: ++id, method, params });
}

describe('spawn tasks of anonymous peers', () => {
  it('refuses tasks to anonymous peers (they would share one owner), so none can list or read another’s', async () => {
    const victim = await legacyTaskSession(peers.httpUrl);
    const attacker = await legacyTaskSession(peers.httpUrl);
    const spawned = await victim('tools/call', {
      name: 'command_subagent.spawn',
      arguments: { instruction: 'echo secret-of-a-task', async: true },
      task: {},
    });
    expect(spawned.result).toBeUndefined();
    expect(spawned.error).toMatchObject({ code: -32602, data: { reason: 'anonymous_task' } });
    // The way that works: an async spawn without a task answers with the handle.
    const plain = await victim('tools/call', {
      name: 'command_subagent.spawn',
      arguments: { instruction: 'echo secret-of-a-task', async: true },
    });
    expect(toolValue(plain.result as Json)).toMatchObject({ state: 'running' });
    // 2026-07-28: a client that takes tasks still gets the handle, as a complete result.
    const modern = await httpRequest(peers.httpUrl, 'tools/call', {
      name: 'command_subagent.spawn',
      arguments: { instruction: 'echo modern', async: true },
      _meta: {
        ...MODERN_META,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    });
    expect(modern.result).toMatchObject({ resultType: 'complete', structuredContent: { state: 'running' } });
    const listed = await attacker('tasks/list', {});
    expect(JSON.stringify(listed)).not.toContain('taskId');
    // A management peer still gets a task: its tasks are its own.
    const byOperator = await operator.request('tools/call', {
      name: 'command_subagent.spawn',
      arguments: { instruction: 'echo operator task', async: true },
      _meta: {
        ...MODERN_META,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    });
    expect(byOperator.result).toMatchObject({ resultType: 'task' });
  });
});

describe('an operator over HTTP', () => {
  let withToken: MixedPeers;
  beforeAll(async () => {
    withToken = await startMixedPeers(
      { exposure: 'classic', agents: { example: TEST_AGENT_CONFIG } },
      { bearer: true },
    );
    await withToken.stdio.initialize();
  }, 30_000);
  afterAll(async () => {
    await withToken?.stop();
  });

  it('reads a restricted peer’s run by id with the bearer token, and is refused without it', async () => {
    const run = toolValue(
      await withToken.stdio.legacy('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { instruction: 'echo for-the-operator' },
      }),
    );
    const uri = `agent://run/${String(run.runId)}`;
    const read = await httpRequest(withToken.httpUrl, 'resources/read', { uri }, BEARER);
    expect(
      JSON.parse(String((read.result as { contents: { text: string }[] }).contents[0]?.text)),
    ).toMatchObject({
      output: 'for-the-operator',
      startedBy: { trust: 'restricted' },
    });
    expect(JSON.stringify(await httpRequest(withToken.httpUrl, 'resources/read', { uri }))).not.toContain(
      'for-the-operator',
    );
  });
});
