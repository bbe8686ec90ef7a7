/** End to end over stdio (`agentd stdio`): work operations yes; operator operations and management resources do not exist. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, modernMeta, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI, cleanEnv } from './support/agentd-process.js';

function startStdio(
  exposure: 'classic' | 'codemode',
  extra: string[] = [],
): {
  proc: ChildProcess;
  client: NdjsonClient;
  exited: Promise<number | null>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-stdio-'));
  const proc = spawn(process.execPath, [CLI, 'stdio', '--exposure', exposure, ...extra], {
    env: cleanEnv({ XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  proc.stderr?.resume();
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    client: new NdjsonClient(proc.stdout as NodeJS.ReadableStream as never, proc.stdin as never),
    exited,
  };
}

/** The error (or isError text) a request produces, with its id removed so answers can be compared. */
async function answer(client: NdjsonClient, method: string, params: Json): Promise<Json> {
  const response = await client.request(method, { ...params, _meta: modernMeta() });
  const { id: _id, ...rest } = response;
  return rest;
}

describe('agentd stdio, classic exposure', () => {
  let classic: ReturnType<typeof startStdio>;
  beforeAll(() => {
    classic = startStdio('classic');
  });
  afterAll(async () => {
    classic.proc.kill('SIGKILL');
  });

  it('offers the work operations and hides the operator ones', async () => {
    const c = classic.client;
    const tools = ((await c.modernResult('tools/list')).tools as Json[]).map((t) => t.name).sort();
    expect(tools).toEqual([
      'command_subagent.approve',
      'command_subagent.cancel',
      'command_subagent.close',
      'command_subagent.send',
      'command_subagent.spawn',
      'query_status',
      'query_subagent.attach',
      'query_subagent.status',
    ]);
    const spawned = toolValue(
      await c.modernResult('tools/call', {
        name: 'command_subagent.spawn',
        arguments: { instruction: 'echo from stdio' },
      }),
    );
    expect(spawned).toMatchObject({ state: 'succeeded', output: 'from stdio' });
  });

  it('refuses operator operations exactly like tools that do not exist', async () => {
    const c = classic.client;
    for (const name of [
      'command_drain',
      'command_lame-duck',
      'command_pause',
      'command_resume',
      'command_reload',
      'command_cancel',
    ]) {
      const refused = await answer(c, 'tools/call', { name, arguments: {} });
      const missing = await answer(c, 'tools/call', {
        name: name.replace('command_', 'command_zz'),
        arguments: {},
      });
      expect(JSON.stringify(refused).replaceAll(name, 'X')).toBe(
        JSON.stringify(missing).replaceAll(name.replace('command_', 'command_zz'), 'X'),
      );
    }
    const status = toolValue(await c.modernResult('tools/call', { name: 'query_status', arguments: {} }));
    expect(status).toMatchObject({ draining: false, paused: false, ready: true });
  });

  it('hides management resources: not listed, and read/subscribe answer like unknown URIs', async () => {
    const c = classic.client;
    const listed = ((await c.modernResult('resources/list')).resources as Json[]).map((r) => String(r.uri));
    // Operation schema resources follow the operations' visibility: only the work operations'.
    // The runs page (an MCP App) is offered to work peers: what it reads is gated per peer.
    // So is the run history: a restricted peer lists only the runs it started.
    expect(listed.filter((u) => !u.startsWith('agent://schema/')).sort()).toEqual([
      'agent://capabilities',
      'agent://runs',
      'agent://status',
      'ui://agentd/runs',
    ]);
    expect(listed.filter((u) => u.startsWith('agent://schema/')).sort()).toEqual([
      'agent://schema/command/subagent.approve',
      'agent://schema/command/subagent.cancel',
      'agent://schema/command/subagent.close',
      'agent://schema/command/subagent.send',
      'agent://schema/command/subagent.spawn',
      'agent://schema/query/status',
      'agent://schema/query/subagent.attach',
      'agent://schema/query/subagent.status',
    ]);
    for (const uri of [
      'agent://inventory',
      'agent://config/effective',
      'agent://events',
      'agent://events?after=0',
      'agent://inventory/',
      'agent://schema/command/drain',
    ]) {
      const hidden = await answer(c, 'resources/read', { uri });
      const missing = await answer(c, 'resources/read', { uri: 'agent://nothing-here' });
      expect(JSON.stringify(hidden).replaceAll(uri, 'U')).toBe(
        JSON.stringify(missing).replaceAll('agent://nothing-here', 'U'),
      );
    }
    const capabilities = resourceValue(
      await c.modernResult('resources/read', { uri: 'agent://capabilities' }),
    );
    expect((capabilities.operations as Json[]).map((o) => o.id).sort()).toEqual([
      'status',
      'subagent.approve',
      'subagent.attach',
      'subagent.cancel',
      'subagent.close',
      'subagent.send',
      'subagent.spawn',
      'subagent.status',
    ]);
    expect((capabilities.resources as Json[]).map((r) => r.uri)).toEqual([
      'agent://status',
      'agent://capabilities',
      'agent://run/{runId}',
      'agent://subagent/{handle}',
      'agent://session/{handle}',
      'agent://runs',
      'agent://logs/{handle}',
    ]);
  });

  it('leaves hidden URIs out of a listen stream exactly like unknown ones', async () => {
    const c = classic.client;
    const id = c.nextId();
    c.send({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        _meta: modernMeta(),
        notifications: {
          resourceSubscriptions: [
            'agent://inventory',
            'agent://events',
            'agent://capabilities',
            'agent://nothing',
          ],
        },
      },
    });
    const ack = await c.waitFor(
      (m) =>
        m.method === 'notifications/subscriptions/acknowledged' &&
        ((m.params as Json)._meta as Json)['io.modelcontextprotocol/subscriptionId'] === id,
    );
    expect(((ack.params as Json).notifications as Json).resourceSubscriptions).toEqual([
      'agent://capabilities',
    ]);
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  });

  it('exits 0 when the client closes stdin', async () => {
    classic.client.end();
    expect(await classic.exited).toBe(0);
  });
});

describe('agentd stdio, Code Mode', () => {
  it('search and execute cannot reach operator operations', async () => {
    const { proc, client: c, exited } = startStdio('codemode', ['--code-mode-wall-ms', '2500']);
    try {
      await c.initialize();
      const tools = ((await c.legacy('tools/list')).tools as Json[]).map((t) => t.name).sort();
      expect(tools).toEqual(['execute', 'search']);
      const found = toolValue(await c.legacy('tools/call', { name: 'search', arguments: { query: '' } }));
      const ids = (found.operations as Json[]).map((r) => r.id);
      expect(ids).toEqual(expect.arrayContaining(['subagent.spawn', 'status']));
      for (const id of ['drain', 'lame-duck', 'pause', 'resume', 'cancel']) expect(ids).not.toContain(id);
      const drain = await c.legacy('tools/call', {
        name: 'execute',
        arguments: { code: "return await agentd.command('drain', {});" },
      });
      const nope = await c.legacy('tools/call', {
        name: 'execute',
        arguments: { code: "return await agentd.command('zzdrain', {});" },
      });
      expect(drain.isError).toBe(true);
      expect(JSON.stringify(drain).replaceAll('drain', 'X')).toBe(
        JSON.stringify(nope).replaceAll('zzdrain', 'X'),
      );
      // The configured wall time bounds one execute; the sync spawn it was waiting on is cancelled.
      const slow = await c.legacy('tools/call', {
        name: 'execute',
        arguments: { code: "return await agentd.subagent.spawn({ instruction: 'sleep 8000' });" },
      });
      expect(slow.isError).toBe(true);
      // The cancel of that spawn completes once its process group is gone: poll, bounded.
      await vi.waitFor(
        async () => {
          const status = toolValue(
            await c.legacy('tools/call', {
              name: 'execute',
              arguments: { code: 'return await agentd.status();' },
            }),
          );
          expect(status.result, 'the cancelled spawn no longer running').toMatchObject({
            running: 0,
            totals: { cancelled: 1 },
          });
        },
        { timeout: 15_000, interval: 50 },
      );
    } finally {
      c.end();
      expect(await exited).toBe(0);
      proc.kill('SIGKILL');
    }
  });
});

describe('agentd stdio --config FILE', () => {
  it("binds none of the file's serve targets: only stdio", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-stdio-config-'));
    const socket = join(dir, 'from-file.sock');
    const configPath = join(dir, 'agentd.json');
    writeFileSync(configPath, JSON.stringify({ serve: [`unix:${socket}`] }));
    const { proc, client: c, exited } = startStdio('classic', ['--config', configPath]);
    try {
      const status = toolValue(await c.modernResult('tools/call', { name: 'query_status', arguments: {} }));
      expect(status).toMatchObject({ name: 'agentd' });
      expect(existsSync(socket)).toBe(false);
    } finally {
      c.end();
      expect(await exited).toBe(0);
      proc.kill('SIGKILL');
    }
  });
});
