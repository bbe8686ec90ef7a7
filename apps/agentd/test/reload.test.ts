/** End to end: hot reload on file change and SIGHUP, valid and invalid, with list_changed pushes and redaction. */

import { type Json, modernMeta, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';

const SECRET = 'supersecret-token-0123456789';
const shout = {
  mode: 'plain',
  command: 'sh',
  args: ['-c', 'tr a-z A-Z'],
  env: { API_KEY: 'env-secret-value' },
};
let agentd: Agentd;
let legacy: NdjsonClient;
let modern: NdjsonClient;
let listenId: number;

const effective = async () =>
  resourceValue(await modern.modernResult('resources/read', { uri: 'agent://config/effective' }));

beforeAll(async () => {
  agentd = await startAgentd({
    args: ['--exposure', 'classic'],
    config: { auth: { bearerTokens: [{ name: 'ops', token: SECRET }] } },
  });
  legacy = await NdjsonClient.connect(agentd.socket);
  await legacy.initialize();
  modern = await NdjsonClient.connect(agentd.socket);
  listenId = modern.nextId();
  modern.send({
    jsonrpc: '2.0',
    id: listenId,
    method: 'subscriptions/listen',
    params: {
      _meta: modernMeta(),
      notifications: {
        toolsListChanged: true,
        resourceSubscriptions: ['agent://config/effective', 'agent://capabilities'],
      },
    },
  });
  await modern.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
});

afterAll(async () => {
  legacy.end();
  modern.end();
  await agentd.stop();
});

describe('hot reload', () => {
  it('applies a valid file change atomically and pushes tools/list_changed to both eras', async () => {
    const before = await effective();
    expect(before.generation).toBe(1);
    expect(JSON.stringify(before)).not.toContain(SECRET);
    const since = agentd.logs.length;
    agentd.writeConfig({
      auth: { bearerTokens: [{ name: 'ops', token: SECRET }] },
      agents: { shout },
      logLevel: 'debug',
      limits: { maxConcurrentRuns: 3 },
    });
    await agentd.waitForLog((l) => l.msg === 'config reloaded', { since });
    await legacy.waitFor((m) => m.method === 'notifications/tools/list_changed');
    const pushed = await modern.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect(((pushed.params as Json)._meta as Json)['io.modelcontextprotocol/subscriptionId']).toBe(listenId);
    await modern.waitFor(
      (m) =>
        m.method === 'notifications/resources/updated' &&
        (m.params as Json).uri === 'agent://config/effective',
    );
    await modern.waitFor(
      (m) =>
        m.method === 'notifications/resources/updated' && (m.params as Json).uri === 'agent://capabilities',
    );
    const capabilities = resourceValue(
      await modern.modernResult('resources/read', { uri: 'agent://capabilities' }),
    );
    expect((capabilities.agents as Json[]).map((a) => a.name)).toEqual(['example', 'shout']);
    const after = await effective();
    expect(after.generation).toBe(2);
    expect(after.config).toMatchObject({
      logLevel: 'debug',
      limits: { maxConcurrentRuns: 3 },
      agents: { shout: { env: { API_KEY: '[redacted]' } } },
    });
    const text = JSON.stringify(after);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('env-secret-value');
    const tools = (await modern.modernResult('tools/list')).tools as Json[];
    const spawn = tools.find((t) => t.name === 'command_subagent.spawn') as Json;
    expect(((spawn.inputSchema as Json).properties as Json).agent).toMatchObject({
      enum: ['example', 'shout'],
    });
    const ran = toolValue(
      await modern.modernResult('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { agent: 'shout', instruction: 'reloaded' },
      }),
    );
    expect(String(ran.output).trim()).toBe('RELOADED');
  });

  it('rejects an invalid file with the reason in the log and keeps the running config', async () => {
    const since = agentd.logs.length;
    agentd.writeConfig({ agents: { shout, broken: { mode: 'plain' } }, limits: { maxConcurrentRuns: 0 } });
    const rejected = await agentd.waitForLog(
      (l) => l.msg === 'config reload rejected; keeping the running config',
      { since },
    );
    const issues = (rejected.issues as string[]).join('\n');
    expect(issues).toContain('/agents/broken');
    expect(issues).toContain('/limits/maxConcurrentRuns');
    expect((await effective()).generation).toBe(2);
    const ran = toolValue(
      await modern.modernResult('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { agent: 'shout', instruction: 'still here' },
      }),
    );
    expect(String(ran.output).trim()).toBe('STILL HERE');
  });

  it('reloads on SIGHUP and says which changes need a restart', async () => {
    const since = agentd.logs.length;
    agentd.writeConfig({ eventsRing: 50, agents: { shout }, logLevel: 'info', watch: false });
    agentd.proc.kill('SIGHUP');
    const warning = await agentd.waitForLog((l) => l.msg === 'restart required to apply some changes', {
      since,
    });
    expect(warning.keys).toEqual(expect.arrayContaining(['eventsRing', 'auth']));
    const now = await effective();
    expect(now.restartRequired).toEqual(expect.arrayContaining(['eventsRing', 'auth']));
    expect(now.generation).toBe(3);
    // Restart-only keys keep their running values; flags (here --serve) still win over the file.
    expect(now.config).toMatchObject({ eventsRing: 1024, watch: false, serve: [`unix:${agentd.socket}`] });
    expect((now.config as Json).auth).toMatchObject({ bearerTokens: [{ name: 'ops', token: '[redacted]' }] });
  });
});
