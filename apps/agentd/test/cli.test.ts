/** End to end: the CLI's config commands, exit codes, embedded defaults and operator client commands. */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
const running: Agentd[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
});

describe('agentd config', () => {
  it('prints its JSON Schema', async () => {
    const { code, stdout } = await runCli(['config', 'schema']);
    expect(code).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['serve', 'agents', 'limits', 'logLevel']),
    );
  });

  it('checks a file: 0 when valid, 2 with the unknown key and its path when not', async () => {
    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({ agents: { shout: { mode: 'plain', command: 'tr', args: ['a-z', 'A-Z'] } } }),
    );
    expect((await runCli(['config', 'check', good])).code).toBe(0);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ limits: { maxConcurrentRuns: 2, maxRunz: 1 } }));
    const result = await runCli(['config', 'check', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/limits/maxRunz: unknown key 'maxRunz'");
  });

  it('exits 2 on a bad config before any side effect (no socket is created)', async () => {
    const bad = join(dir, 'bad-serve.json');
    const socket = join(dir, 'never.sock');
    writeFileSync(bad, JSON.stringify({ serve: [`unix:${socket}`], logLevel: 'chatty' }));
    const result = await runCli(['--config', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('/logLevel: must be one of');
    expect(existsSync(socket)).toBe(false);
    const env = await runCli(['--serve', `unix:${socket}`], cleanEnv({ AGENTD_MAX_WARM_SESSIONS: 'many' }));
    expect(env.code).toBe(2);
    expect(env.stderr).toContain("AGENTD_MAX_WARM_SESSIONS: expected an integer, got 'many'");
    expect((await runCli(['--no-such-flag'])).code).toBe(2);
  });

  it('says clearly when the HTTP port is taken, and exits 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(['--serve', `http://127.0.0.1:${port}`]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`);
    } finally {
      blocker.close();
    }
  });
});

describe('agentd with no arguments', () => {
  it('starts on the embedded defaults (socket under the runtime dir, loopback HTTP) and prints where', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'agentd-xdg-'));
    const proc = spawn(process.execPath, [CLI], {
      env: cleanEnv({ XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: runtime }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      proc.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('/mcp')) resolve();
      });
      void exited.then(() => reject(new Error(`exited early: ${err}`)));
    });
    expect(out).toContain(join(runtime, 'agentd', 'agentd.sock'));
    expect(out).toContain('http://127.0.0.1:4387/mcp');
    const status = await runCli(['status', '--json'], cleanEnv({ XDG_RUNTIME_DIR: runtime }));
    expect(JSON.parse(status.stdout)).toMatchObject({ name: 'agentd', ready: true, exposure: 'codemode' });
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('operator client commands', () => {
  it('status, tools, spawn and call speak the modern era over the unix socket', async () => {
    const agentd = await startAgentd({ config: { agents: { example: TEST_AGENT_CONFIG } } });
    running.push(agentd);
    const socket = ['--socket', agentd.socket];
    const tools = await runCli(['tools', ...socket]);
    expect(tools.stdout.split('\n').map((l) => l.split('\t')[0])).toEqual(['execute', 'search', '']);
    const spawned = await runCli(['spawn', '--json', ...socket, 'uppercase hello']);
    expect(spawned.code).toBe(0);
    expect(JSON.parse(spawned.stdout)).toMatchObject({
      state: 'succeeded',
      output: 'HELLO',
      agent: 'example',
    });
    const failed = await runCli(['spawn', '--json', ...socket, 'fail as planned']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ state: 'failed', error: { message: 'as planned' } });
    const call = await runCli(['call', ...socket, 'server/discover']);
    expect(JSON.parse(call.stdout).supportedVersions).toContain('2026-07-28');
    const bad = await runCli(['call', ...socket, 'no/such/method']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('-32601');
    const unreachable = await runCli(['status', '--socket', join(dir, 'nobody.sock')]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('is agentd running?');
  });
});
