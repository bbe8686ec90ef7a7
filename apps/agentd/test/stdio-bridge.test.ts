/**
 * `agentd stdio` joins the running daemon: the official SDK clients (v1, legacy era; v2,
 * 2026-07-28) as the MCP host launch `agentd stdio`, which relays to the daemon's bridge socket.
 * The host keeps a stdio peer's standing (no operator tools), its runs show in `agentd runs`, and
 * a cancel works; without a daemon `--daemon require` fails clearly and `--daemon start` starts one.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, modernMeta, NdjsonClient } from '@agentd/test-support';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

/** A plain agent that prints a line every 100 ms for a minute: cancelled long before it ends. */
const TICKER = {
  mode: 'plain',
  command: '/bin/sh',
  args: ['-c', 'i=0; while [ $i -lt 600 ]; do echo "{instruction} $i"; i=$((i+1)); sleep 0.1; done'],
};
const STDIO_TOOLS = [
  'command_subagent.approve',
  'command_subagent.cancel',
  'command_subagent.close',
  'command_subagent.send',
  'command_subagent.spawn',
  'query_status',
  'query_subagent.attach',
  'query_subagent.status',
];

interface HostClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

const resultValue = (result: unknown) => {
  const r = result as { structuredContent?: Record<string, unknown>; content?: { text?: string }[] };
  return (r.structuredContent ?? JSON.parse(r.content?.[0]?.text ?? '{}')) as Record<string, unknown>;
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let agentd: Agentd;
beforeAll(async () => {
  agentd = await startAgentd({ config: { exposure: 'classic', agents: { ticker: TICKER } } });
}, 60_000);
afterAll(async () => {
  await agentd?.stop();
});

const hostEnv = () =>
  cleanEnv({
    AGENTD_SOCKET: agentd.socket,
    XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'agentd-host-')),
  }) as Record<string, string>;

async function hostSession(client: HostClient, era: string): Promise<void> {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  expect(tools).toEqual(STDIO_TOOLS);
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  expect(resources).not.toContain('agent://inventory');
  const spawned = resultValue(
    await client.callTool({
      name: 'command_subagent.spawn',
      arguments: { agent: 'ticker', instruction: era, async: true },
    }),
  );
  const handle = spawned.handle as string;
  expect(handle).toBeDefined();
  // The daemon runs it: the operator sees it in `agentd runs`, started by a stdio peer.
  const runs = await runCli(['runs', '--json', '--socket', agentd.socket]);
  expect(runs.code).toBe(0);
  expect(runs.stdout).toContain(String(spawned.runId ?? handle));
  const status = await runCli(['status', '--json', '--socket', agentd.socket, handle]);
  expect(JSON.parse(status.stdout)).toMatchObject({ state: 'running' });
  await client.callTool({ name: 'command_subagent.cancel', arguments: { handle } });
  await expect
    .poll(
      async () =>
        JSON.parse((await runCli(['status', '--json', '--socket', agentd.socket, handle])).stdout).state,
      {
        timeout: 30_000,
      },
    )
    .toBe('cancelled');
}

describe('agentd stdio with a daemon running', () => {
  it('v1 SDK host (legacy era): the daemon serves it as a stdio peer; its run shows and cancels', async () => {
    const transport = new StdioV1({
      command: process.execPath,
      args: [CLI, 'stdio'],
      env: hostEnv(),
      stderr: 'pipe',
    });
    const client = new ClientV1({ name: 'host-v1', version: '1' });
    await client.connect(transport);
    try {
      // Served by the daemon, not in-process: the status it reports is the daemon's own pid.
      const status = resultValue(await client.callTool({ name: 'query_status', arguments: {} }));
      expect(status.pid).toBe(agentd.proc.pid);
      await hostSession(client as unknown as HostClient, 'v1');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('v2 SDK host (2026-07-28): the same', async () => {
    const transport = new StdioV2({
      command: process.execPath,
      args: [CLI, 'stdio'],
      env: hostEnv(),
      stderr: 'pipe',
    });
    const client = new ClientV2(
      { name: 'host-v2', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(transport);
    try {
      const status = resultValue(await client.callTool({ name: 'query_status', arguments: {} }));
      expect(status.pid).toBe(agentd.proc.pid);
      await hostSession(client as unknown as HostClient, 'v2');
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('agentd stdio without a daemon', () => {
  it('--daemon require fails clearly; --daemon start starts the daemon and joins it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-nodaemon-'));
    const socket = join(dir, 'a.sock');
    const config = join(dir, 'agentd.json');
    writeFileSync(config, JSON.stringify({ serve: [`unix:${socket}`], exposure: 'classic' }));
    const env = cleanEnv({ XDG_RUNTIME_DIR: dir });
    const required = await runCli(['stdio', '--daemon', 'require', '--config', config], env, '');
    expect(required.code).toBe(1);
    expect(required.stderr).toContain('no agentd daemon answers at');
    const transport = new StdioV1({
      command: process.execPath,
      args: [CLI, 'stdio', '--daemon', 'start', '--config', config],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new ClientV1({ name: 'host-start', version: '1' });
    await client.connect(transport);
    const pid = Number(readFileSync(`${socket}.pid`, 'utf8'));
    try {
      const status = resultValue(await client.callTool({ name: 'query_status', arguments: {} }));
      expect(status.pid).toBe(pid);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(STDIO_TOOLS);
    } finally {
      await client.close();
      // The daemon outlives its host (it is the user's); this test stops the one it started.
      process.kill(pid, 'SIGTERM');
      await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false);
    }
  }, 120_000);
});

describe('agentd stdio through the daemon: input asked of the host, and notifications', () => {
  it('a warm session asks the host for its next turn (elicitation) and the answer reaches the run', async () => {
    const daemon = await startAgentd({ args: ['--exposure', 'classic'] });
    const host = spawn(process.execPath, [CLI, 'stdio'], {
      env: cleanEnv({
        AGENTD_SOCKET: daemon.socket,
        XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'agentd-host-')),
      }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    host.stderr.resume();
    const exited = new Promise<number | null>((resolve) => host.on('exit', (code) => resolve(code)));
    const c = new NdjsonClient(host.stdout as never, host.stdin as never);
    const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
    const modern = (method: string, params: Json) =>
      c.request(method, {
        ...params,
        _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': caps }),
      });
    const taskOf = async (taskId: string) => (await modern('tasks/get', { taskId })).result as Json;
    try {
      const created = (
        await modern('tools/call', {
          name: 'command_subagent.spawn',
          arguments: { instruction: 'echo first', async: true, warm: true },
        })
      ).result as Json;
      const taskId = created.taskId as string;
      // A listen stream through the bridge: the task's notification arrives when the run ends.
      c.send({
        jsonrpc: '2.0',
        id: 'bridge-listen',
        method: 'subscriptions/listen',
        params: {
          notifications: { taskIds: [taskId] },
          _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': caps }),
        },
      });
      await c.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
      const ready = await vi.waitFor(
        async () => {
          const t = await taskOf(taskId);
          if (t.status !== 'input_required') throw new Error(JSON.stringify(t));
          return t;
        },
        { timeout: 15_000, interval: 50 },
      );
      expect((ready.inputRequests as Json).turn_1).toMatchObject({ method: 'elicitation/create' });
      await modern('tasks/update', {
        taskId,
        inputResponses: { turn_1: { action: 'accept', content: { message: 'uppercase bridged' } } },
      });
      await vi.waitFor(
        async () => {
          const t = await taskOf(taskId);
          if (!('turn_2' in ((t.inputRequests as Json | undefined) ?? {})))
            throw new Error(JSON.stringify(t));
        },
        { timeout: 15_000, interval: 50 },
      );
      await modern('tasks/update', { taskId, inputResponses: { turn_2: { action: 'decline' } } });
      const done = await c.waitFor(
        (m) => m.method === 'notifications/tasks' && (m.params as Json).status === 'completed',
      );
      expect(done.params).toMatchObject({
        taskId,
        result: { structuredContent: { state: 'succeeded', turns: 2, lastReply: { text: 'BRIDGED' } } },
      });
      // The host closing stdin ends the bridge cleanly, as it ends an in-process agentd stdio.
      c.end();
      expect(await exited).toBe(0);
    } finally {
      host.kill('SIGKILL');
      await daemon.stop();
    }
  }, 120_000);
});
