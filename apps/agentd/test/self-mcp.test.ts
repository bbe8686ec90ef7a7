/** End to end over the unix socket: both eras, spawn modes, subscriptions, cancel, crash, hang. */

import { type Json, modernMeta, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { type Agentd, startAgentd } from './support/agentd-process.js';

let agentd: Agentd;
const clients: NdjsonClient[] = [];

async function connect(): Promise<NdjsonClient> {
  const client = await NdjsonClient.connect(agentd.socket);
  clients.push(client);
  return client;
}

/** Calls a classic operation tool in the modern era; returns the whole CallToolResult. */
function call(client: NdjsonClient, name: string, args: Json = {}): Promise<Json> {
  return client.modernResult('tools/call', { name, arguments: args });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  agentd = await startAgentd({
    args: ['--exposure', 'classic'],
    config: {
      agents: {
        example: TEST_AGENT_CONFIG,
        shout: { mode: 'plain', command: 'sh', args: ['-c', 'tr a-z A-Z; echo done >&2'] },
      },
    },
  });
});

afterAll(async () => {
  for (const c of clients) c.end();
  await agentd.stop();
});

describe('modern era (2026-07-28)', () => {
  it('discovers, lists tools and resources (a management peer sees operator operations too)', async () => {
    const c = await connect();
    const discover = await c.modernResult('server/discover');
    expect(discover.supportedVersions).toContain('2026-07-28');
    expect(discover.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true },
    });
    const tools = ((await c.modernResult('tools/list')).tools as Json[]).map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining([
        'query_status',
        'command_subagent.spawn',
        'command_subagent.send',
        'query_subagent.status',
        'command_subagent.cancel',
        'command_drain',
        'command_lame-duck',
        'command_pause',
        'command_resume',
        'command_cancel',
      ]),
    );
    const resources = ((await c.modernResult('resources/list')).resources as Json[]).map((r) => r.uri);
    expect(resources).toEqual(
      expect.arrayContaining([
        'agent://status',
        'agent://capabilities',
        'agent://inventory',
        'agent://config/effective',
        'agent://events',
      ]),
    );
    const listedResources = (await c.modernResult('resources/list')).resources as Json[];
    const subscribable = (uri: string) =>
      ((listedResources.find((r) => r.uri === uri)?._meta ?? {}) as Json)['dev.agentd/subscribable'];
    expect(subscribable('agent://status')).toBe(false);
    expect(subscribable('agent://capabilities')).toBe(true);
    const templates = ((await c.modernResult('resources/templates/list')).resourceTemplates as Json[]).map(
      (t) => t.uriTemplate,
    );
    expect(templates).toEqual(
      expect.arrayContaining([
        'agent://run/{runId}',
        'agent://subagent/{handle}',
        'agent://session/{handle}',
      ]),
    );
  });

  it('spawns sync with the built-in agent and with a plain-mode shell command', async () => {
    const c = await connect();
    const example = toolValue(
      await call(c, 'command_subagent.spawn', { instruction: 'uppercase hello agentd' }),
    );
    expect(example).toMatchObject({
      state: 'succeeded',
      terminal: true,
      agent: 'example',
      output: 'HELLO AGENTD',
    });
    const plain = toolValue(
      await call(c, 'command_subagent.spawn', { agent: 'shout', instruction: 'wrap me' }),
    );
    expect(plain).toMatchObject({ state: 'succeeded', agent: 'shout', mode: 'plain' });
    expect(String(plain.output).trim()).toBe('WRAP ME');
  });

  it("forwards the agent's progress and log events to the waiting request", async () => {
    const c = await connect();
    const meta = modernMeta({ progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'info' });
    const response = await c.request('tools/call', {
      _meta: meta,
      name: 'command_subagent.spawn',
      arguments: { instruction: 'sleep 400' },
    });
    expect(toolValue(response.result as Json)).toMatchObject({ state: 'succeeded' });
    const progress = c.notifications('notifications/progress').map((n) => n.params as Json);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    expect(progress.every((p) => p.progressToken === 'p1' && p.total === 4)).toBe(true);
    const warm = toolValue(await call(c, 'command_subagent.spawn', { instruction: 'echo hi', warm: true }));
    await c.request('tools/call', {
      _meta: meta,
      name: 'command_subagent.send',
      arguments: { handle: warm.handle, message: 'log hello there' },
    });
    const logged = c.notifications('notifications/message').map((n) => n.params as Json);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'info', data: 'hello there' }));
    await call(c, 'command_subagent.cancel', { handle: warm.handle });
  });

  it('spawns async, and a listen stream gets the one-shot subagent update and the repeated run updates', async () => {
    const c = await connect();
    const started = toolValue(
      await call(c, 'command_subagent.spawn', { instruction: 'sleep 1200', async: true }),
    );
    expect(started).toMatchObject({ state: 'running', terminal: false });
    const subagentUri = `agent://subagent/${started.handle}`;
    const runUri = `agent://run/${started.runId}`;
    const listenId = c.nextId();
    c.send({
      jsonrpc: '2.0',
      id: listenId,
      method: 'subscriptions/listen',
      params: {
        _meta: modernMeta(),
        notifications: { resourceSubscriptions: [subagentUri, runUri, 'agent://status'] },
      },
    });
    const ack = await c.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    // agent://status is not subscribable, so it is left out of the honoured subset.
    expect((ack.params as Json).notifications).toEqual({ resourceSubscriptions: [subagentUri, runUri] });
    const updated = (uri: string) => (m: Json) =>
      m.method === 'notifications/resources/updated' && (m.params as Json).uri === uri;
    const oneShot = await c.waitFor(updated(subagentUri));
    expect(((oneShot.params as Json)._meta as Json)['io.modelcontextprotocol/subscriptionId']).toBe(listenId);
    await c.waitFor(updated(runUri));
    const done = toolValue(await call(c, 'query_subagent.status', { handle: started.handle }));
    expect(done).toMatchObject({ state: 'succeeded', output: 'slept 1200 ms' });
    const run = resourceValue(await c.modernResult('resources/read', { uri: runUri }));
    expect(run).toMatchObject({ runId: started.runId, state: 'succeeded' });
    expect(run.handle).toBeUndefined();
    // One-shot: exactly one update for the subagent, however long we wait for the run's repeated ones.
    expect(c.messages.filter(updated(subagentUri))).toHaveLength(1);
  });

  it('keeps warm sessions: turns, repeated session updates, and cancel kills the whole process tree', async () => {
    const c = await connect();
    const warm = toolValue(
      await call(c, 'command_subagent.spawn', { instruction: 'grandchild', warm: true }),
    );
    expect(warm).toMatchObject({ state: 'ready', warm: true, turns: 1 });
    const grandchild = Number(warm.output);
    expect(alive(grandchild)).toBe(true);
    const sessionUri = `agent://session/${warm.handle}`;
    const legacy = await connect();
    await legacy.initialize();
    await legacy.legacy('resources/subscribe', { uri: sessionUri });
    const reply = toolValue(
      await call(c, 'command_subagent.send', { handle: warm.handle, message: 'echo second' }),
    );
    expect(reply).toMatchObject({ turn: 2, isError: false, output: 'second' });
    await call(c, 'command_subagent.send', { handle: warm.handle, message: 'history' });
    const updates = (n: number) => (m: Json) =>
      legacy
        .notifications('notifications/resources/updated')
        .filter((u) => (u.params as Json).uri === sessionUri).length >= n && m !== undefined;
    await legacy.waitFor(updates(2));
    const session = resourceValue(await legacy.legacy('resources/read', { uri: sessionUri }));
    expect(session).toMatchObject({ turns: 3, warm: true, state: 'ready' });
    const cancelled = toolValue(await call(c, 'command_subagent.cancel', { handle: warm.handle }));
    expect(cancelled).toMatchObject({ state: 'cancelled', terminal: true });
    await vi.waitFor(
      () => expect(alive(grandchild), 'the cancelled warm agent’s grandchild is gone').toBe(false),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
  });

  it('reports a crashing child with its exit code and stderr tail, and kills a hanging one at its timeout', async () => {
    const c = await connect();
    const [crashed, hung] = await Promise.all([
      call(c, 'command_subagent.spawn', { instruction: 'crash 7' }).then(toolValue),
      call(c, 'command_subagent.spawn', { instruction: 'hang', timeoutMs: 500 }).then(toolValue),
    ]);
    expect(crashed).toMatchObject({ state: 'failed', error: { exitCode: 7 } });
    expect((crashed.error as Json).stderrTail).toContain('crashing as instructed');
    expect(hung).toMatchObject({ state: 'timed_out', terminal: true });
  });

  it('answers refusals and bad arguments as isError results, and unknown tools as protocol errors', async () => {
    const c = await connect();
    const unknown = await call(c, 'query_subagent.status', { handle: 'sa_doesnotexist' });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('unknown_handle');
    const badArgs = await call(c, 'command_subagent.spawn', { instruction: 'x', agent: 'nobody' });
    expect(badArgs.isError).toBe(true);
    const missing = await c.request('tools/call', {
      _meta: modernMeta(),
      name: 'command_nope',
      arguments: {},
    });
    expect((missing.error as Json).code).toBe(-32602);
  });
});

describe('management resources', () => {
  it('serves the inventory with handles, and the event ring with after/level filters and repeated updates', async () => {
    const c = await connect();
    const warm = toolValue(
      await call(c, 'command_subagent.spawn', { instruction: 'echo inventory', warm: true }),
    );
    const inventory = resourceValue(await c.modernResult('resources/read', { uri: 'agent://inventory' }));
    expect((inventory.subagents as Json[]).some((s) => s.handle === warm.handle && s.state === 'ready')).toBe(
      true,
    );
    expect(inventory.listeners).toEqual([{ target: `unix:${agentd.socket}`, address: agentd.socket }]);
    const all = resourceValue(await c.modernResult('resources/read', { uri: 'agent://events' }));
    expect(all.eventsSchema).toBe('1.0');
    expect((all.events as Json[]).some((e) => e.msg === 'agentd started')).toBe(true);
    const newest = Number(all.newestSeq);
    const warnings = resourceValue(
      await c.modernResult('resources/read', { uri: 'agent://events?after=0&level=warn' }),
    );
    expect((warnings.events as Json[]).every((e) => e.level === 'warning' || e.level === 'error')).toBe(true);
    const legacy = await connect();
    await legacy.initialize();
    await legacy.legacy('resources/subscribe', { uri: 'agent://events?level=info' });
    await call(c, 'command_subagent.cancel', { handle: warm.handle });
    const note = await legacy.waitFor((m) => m.method === 'notifications/resources/updated');
    expect((note.params as Json).uri).toBe('agent://events?level=info');
    const after = resourceValue(
      await c.modernResult('resources/read', { uri: `agent://events?after=${newest}` }),
    );
    expect((after.events as Json[]).every((e) => Number(e.seq) > newest)).toBe(true);
    expect((after.events as Json[]).some((e) => e.msg === 'subagent ended' && e.runId === warm.runId)).toBe(
      true,
    );
    const bad = await c.request('resources/read', { _meta: modernMeta(), uri: 'agent://events?level=loud' });
    expect(bad.error).toBeDefined();
  });
});

describe('legacy era (2025-11-25)', () => {
  it('subscribes with resources/subscribe: one update at the terminal state, clear refusals otherwise', async () => {
    const c = await connect();
    const init = await c.initialize();
    expect(init.protocolVersion).toBe('2025-11-25');
    const started = toolValue(
      await c.legacy('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { instruction: 'sleep 800', async: true },
      }),
    );
    const uri = `agent://subagent/${started.handle}`;
    expect(await c.legacy('resources/subscribe', { uri })).toEqual({});
    const note = await c.waitFor(
      (m) => m.method === 'notifications/resources/updated' && (m.params as Json).uri === uri,
    );
    expect(note.params).toEqual({ uri });
    const status = await c.request('resources/subscribe', { uri: 'agent://status' });
    expect(status.error).toMatchObject({ code: -32602 });
    expect((status.error as Json).message).toContain('not subscribable');
    const finished = await c.request('resources/subscribe', { uri });
    expect((finished.error as Json).message).toMatch(/already succeeded; read it instead/);
    const nope = await c.request('resources/read', { uri: 'agent://subagent/sa_nope' });
    expect(nope.error).toMatchObject({ code: -32002 });
  });

  it('serves other requests while a sync spawn waits, and notifications/cancelled cancels that run', async () => {
    const c = await connect();
    await c.initialize();
    const since = agentd.logs.length;
    const spawnId = c.nextId();
    c.send({
      jsonrpc: '2.0',
      id: spawnId,
      method: 'tools/call',
      params: { name: 'command_subagent.spawn', arguments: { instruction: 'sleep 20000' } },
    });
    const starting = await agentd.waitForLog((l) => l.msg === 'subagent starting', { since });
    const status = toolValue(await c.legacy('tools/call', { name: 'query_status', arguments: {} }));
    expect(status.running).toBeGreaterThanOrEqual(1);
    c.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: spawnId, reason: 'changed my mind' },
    });
    const ended = await agentd.waitForLog((l) => l.msg === 'subagent ended' && l.runId === starting.runId, {
      since,
    });
    expect(ended.state).toBe('cancelled');
    const run = resourceValue(
      await c.legacy('resources/read', { uri: `agent://run/${String(starting.runId)}` }),
    );
    expect(run).toMatchObject({ state: 'cancelled', terminal: true });
  });

  it('answers a line that is not JSON with -32700 and keeps serving', async () => {
    const c = await connect();
    (c as unknown as { output: NodeJS.WritableStream }).output.write('{not json\n');
    const error = await c.waitFor((m) => m.error !== undefined && m.id === null);
    expect((error.error as Json).code).toBe(-32700);
    // An unsupported version is answered with the newest legacy one (the MCP rule), not an error.
    expect(await c.initialize('1999-01-01')).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'agentd' },
    });
  });
});
