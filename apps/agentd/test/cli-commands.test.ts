/** End to end: the operator CLI's commands against the real daemon, over the unix socket and HTTP. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Json } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLIENT_SPECS } from '../src/cli/usage.js';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const TOKEN = 'cli-e2e-bearer-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'agentd-cli-cmds-'));
const go = join(dir, 'go');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, `${TOKEN}\n`);

const agents = {
  example: TEST_AGENT_CONFIG,
  // Prints, waits for the test's signal file, prints again: "mid-run" is a fact, not a timing guess.
  gated: {
    mode: 'plain',
    command: '/bin/sh',
    args: [
      '-c',
      `echo "first {instruction}"; echo "note on stderr" >&2; while [ ! -e '${go}' ]; do sleep 0.02; done; echo last`,
    ],
  },
  ticker: {
    mode: 'plain',
    command: '/bin/sh',
    args: ['-c', 'echo tick 1; echo tock >&2; echo tick 2'],
  },
};

let agentd: Agentd;
let socket: string[];

beforeAll(async () => {
  agentd = await startAgentd({
    http: true,
    config: { agents, auth: { bearerTokens: [{ name: 'ops', token: TOKEN }] } },
    args: ['--log-level', 'debug'],
  });
  socket = ['--socket', agentd.socket];
});

afterAll(async () => {
  await agentd.stop();
});

/** A CLI process kept running, to signal it mid-run. */
function startCli(args: string[], env = cleanEnv()) {
  const proc: ChildProcess = spawn(process.execPath, [CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  proc.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  proc.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const w of [...waiters]) if (stderr.includes(w.text)) w.resolve();
  });
  const closed = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return {
    proc,
    closed,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    stderrIncludes(text: string): Promise<void> {
      if (stderr.includes(text)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ text, resolve }));
    },
  };
}

describe('help', () => {
  it('every command answers --help with exit 0 and its usage', async () => {
    const names = [...Object.keys(CLIENT_SPECS), 'serve', 'stdio', 'config'];
    const results = await Promise.all(names.map((name) => runCli([name, '--help'])));
    results.forEach((result, i) => {
      expect(result.code, names[i]).toBe(0);
      expect(result.stdout, names[i]).toContain('Usage');
    });
    const check = await runCli(['config', 'check', '--help']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('agentd config check FILE');
    expect(check.stderr).toBe('');
  });
});

describe('finding the daemon', () => {
  it('reads the socket from --config and AGENTD_CONFIG, the way the daemon resolves its file', async () => {
    const clientConfig = join(dir, 'client.json');
    writeFileSync(clientConfig, JSON.stringify({ serve: [`unix:${agentd.socket}`] }));
    const viaFlag = await runCli(['status', '--json', '--config', clientConfig]);
    expect(viaFlag.code).toBe(0);
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({ name: 'agentd', pid: agentd.proc.pid });
    const viaEnv = await runCli(['status', '--json'], cleanEnv({ AGENTD_CONFIG: clientConfig }));
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ pid: agentd.proc.pid });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ serve: 'nope' }));
    expect((await runCli(['status', '--config', broken])).code).toBe(2);
  });

  it('talks HTTP with --url and a bearer token from --token-file or AGENTD_TOKEN', async () => {
    const url = ['--url', agentd.httpUrl as string];
    const withFile = await runCli([
      'spawn',
      '--json',
      ...url,
      '--token-file',
      tokenFile,
      'uppercase over http',
    ]);
    expect(withFile.code).toBe(0);
    expect(JSON.parse(withFile.stdout)).toMatchObject({ state: 'succeeded', output: 'OVER HTTP' });
    const withEnv = await runCli(['runs', '--json', ...url], cleanEnv({ AGENTD_TOKEN: TOKEN }));
    expect(withEnv.code).toBe(0);
    // The listing carries summaries: the run and the size of its output, never the output itself.
    const spawned = JSON.parse(withFile.stdout) as Json;
    const listed = (JSON.parse(withEnv.stdout) as Json[]).find((r) => r.runId === spawned.runId);
    expect(listed).toMatchObject({ state: 'succeeded', outputBytes: 'OVER HTTP'.length });
    expect(listed?.output).toBeUndefined();
    const without = await runCli(['status', ...url]);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('bearer token');
  });
});

describe('runs', () => {
  it('spawn streams a plain agent line by line to stderr and prints the result on stdout', async () => {
    const result = await runCli(['spawn', ...socket, '--agent', 'ticker', 'go']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('tick 1\ntick 2\n');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toMatch(/^agentd: run run_\S+ started \(handle sa_\S+\)$/);
    // stdout and stderr are separate pipes: their relative order is the child's business.
    expect(lines.indexOf('tick 1')).toBeLessThan(lines.indexOf('tick 2'));
    expect(lines).toContain('tock');
    // Every log line's pid is the daemon's; the child's pid has its own key.
    const runId = /run (run_\S+) started/.exec(result.stderr)?.[1];
    const running = await agentd.waitForLog((l) => l.msg === 'subagent running' && l.runId === runId);
    expect(running.pid).toBe(agentd.proc.pid);
    expect(running.childPid).toEqual(expect.any(Number));
    expect(running.childPid).not.toBe(agentd.proc.pid);
  });

  it('reads the instruction from stdin with -', async () => {
    const result = await runCli(['spawn', '--json', ...socket, '-'], cleanEnv(), 'reverse stressed\n');
    expect(JSON.parse(result.stdout)).toMatchObject({ state: 'succeeded', output: 'desserts' });
    expect((await runCli(['spawn', ...socket, '-'], cleanEnv(), '')).code).toBe(2);
    // A usage error comes before connecting: no daemon needed to be told.
    const nowhere = await runCli(['spawn', '--socket', join(dir, 'nobody.sock'), '-'], cleanEnv(), '');
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('stdin');
  });

  it('status HANDLE shows a running plain agent’s tail; wait gives up (3) then returns the result', async () => {
    const started = await runCli(['spawn', '--json', '--async', ...socket, '--agent', 'gated', 'one']);
    const { handle } = JSON.parse(started.stdout) as { handle: string };
    const status = await vi.waitFor(
      async () => {
        const now = JSON.parse((await runCli(['status', '--json', ...socket, handle])).stdout) as Json;
        expect(
          (now.tail as Json[] | undefined)?.length,
          'the running agent’s first two lines in its tail',
        ).toBeGreaterThanOrEqual(2);
        return now;
      },
      { timeout: 20_000, interval: 25 },
    );
    expect(status.state).toBe('running');
    expect(status.tail).toEqual(
      expect.arrayContaining([
        { stream: 'stdout', text: 'first one' },
        { stream: 'stderr', text: 'note on stderr' },
      ]),
    );
    // The same live tail is the agent://subagent/<handle> resource.
    const read = JSON.parse(
      (
        await runCli([
          'call',
          ...socket,
          'resources/read',
          JSON.stringify({ uri: `agent://subagent/${handle}` }),
        ])
      ).stdout,
    ) as { contents: { text: string }[] };
    const resource = JSON.parse(read.contents[0]?.text ?? '{}') as Json;
    expect(resource).toMatchObject({ state: 'running' });
    expect(resource.tail).toContainEqual({ stream: 'stdout', text: 'first one' });
    const gaveUp = await runCli(['wait', ...socket, handle, '--timeout-ms', '100']);
    expect(gaveUp.code).toBe(3);
    expect(gaveUp.stderr).toContain('still running');
    writeFileSync(go, '');
    const waited = await runCli(['wait', ...socket, handle]);
    expect(waited.code).toBe(0);
    expect(waited.stdout).toContain('succeeded');
    expect(waited.stdout).toContain('first one\nlast');
  });

  it('cancel HANDLE, cancel --all, send to a warm session, runs', async () => {
    const slow = JSON.parse(
      (await runCli(['spawn', '--json', '--async', ...socket, 'sleep 30000'])).stdout,
    ) as Json;
    const cancelled = await runCli(['cancel', '--json', ...socket, String(slow.handle)]);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ state: 'cancelled' });
    const warm = JSON.parse(
      (await runCli(['spawn', '--json', '--warm', ...socket, 'echo first'])).stdout,
    ) as Json;
    expect(warm).toMatchObject({ state: 'ready' });
    const turn = await runCli(['send', ...socket, String(warm.handle), '-'], cleanEnv(), 'history');
    expect(turn.code).toBe(0);
    expect(turn.stdout).toBe('echo first\nhistory\n');
    const runs = await runCli(['runs', ...socket]);
    expect(runs.stdout.split('\n')[0]).toMatch(/^HANDLE\s+RUN\s+AGENT\s+STATE\s+TIME$/);
    expect(runs.stdout).toContain(String(warm.handle));
    const all = await runCli(['cancel', '--all', '--json', ...socket]);
    expect((JSON.parse(all.stdout) as Json).cancelled).toEqual([
      expect.objectContaining({ handle: warm.handle }),
    ]);
    const unknown = await runCli(['status', ...socket, 'sa_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('(unknown_handle)');
  });

  it('a failed run exits 1 with its error', async () => {
    const failed = await runCli(['spawn', ...socket, 'fail on purpose']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('error: on purpose');
  });
});

describe('interrupting agentd spawn', () => {
  it('SIGINT cancels the run (unix socket) and says so; exit 130', async () => {
    const cli = startCli(['spawn', ...socket, 'sleep 60000']);
    await cli.stderrIncludes('started (handle');
    const runId = /run (run_\S+) started/.exec(cli.stderr)?.[1];
    cli.proc.kill('SIGINT');
    expect(await cli.closed).toBe(130);
    expect(cli.stderr).toContain(`cancelling run ${runId}`);
    expect(cli.stderr).toContain(`run ${runId} cancelled`);
    const ended = await agentd.waitForLog((l) => l.msg === 'subagent ended' && l.runId === runId);
    expect(ended.state).toBe('cancelled');
  });

  it('SIGTERM cancels the run over HTTP too; exit 143', async () => {
    const cli = startCli(
      ['spawn', '--url', agentd.httpUrl as string, 'sleep 60000'],
      cleanEnv({ AGENTD_TOKEN: TOKEN }),
    );
    await cli.stderrIncludes('started (handle');
    const runId = /run (run_\S+) started/.exec(cli.stderr)?.[1];
    cli.proc.kill('SIGTERM');
    expect(await cli.closed).toBe(143);
    expect(cli.stderr).toContain(`run ${runId} cancelled`);
  });
});

describe('operator commands', () => {
  it('events, pause/resume, lame-duck, reload (rejected, then applied) and drain', async () => {
    const events = await runCli(['events', '--json', '--level', 'warn', ...socket]);
    const warnings = events.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(warnings.length).toBeGreaterThan(0);
    // `--level warn` is the older spelling of `warning`; the records carry the syslog names.
    expect(warnings.every((e) => e.level === 'warning' || e.level === 'error')).toBe(true);

    const follow = startCli(['events', '--follow', '--after', String(warnings.at(-1)?.seq), ...socket]);
    expect((await runCli(['pause', ...socket])).stdout).toContain('paused');
    const refused = await runCli(['spawn', ...socket, 'echo no']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('(paused)');
    expect((await runCli(['resume', ...socket])).stdout).toContain('accepting');
    await vi.waitFor(
      () => expect(follow.stdout, 'the followed events show the resume').toContain('supervisor resumed'),
      {
        timeout: 15_000,
        interval: 20,
      },
    );
    expect(follow.stdout).toContain('supervisor paused');
    follow.proc.kill('SIGINT');
    expect(await follow.closed).toBe(0);

    expect(JSON.parse((await runCli(['lame-duck', '--json', ...socket])).stdout)).toMatchObject({
      ready: false,
    });
    expect(JSON.parse((await runCli(['lame-duck', '--ready', '--json', ...socket])).stdout)).toMatchObject({
      ready: true,
    });

    agentd.writeConfig({ agents, limits: { maxConcurrentRuns: 'many' } });
    const rejected = await runCli(['reload', ...socket]);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toContain('/limits/maxConcurrentRuns');
    agentd.writeConfig({
      agents,
      auth: { bearerTokens: [{ name: 'ops', token: TOKEN }] },
      limits: { maxConcurrentRuns: 3 },
    });
    const applied = await runCli(['reload', '--json', ...socket]);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ applied: true });

    const drained = await runCli(['drain', '--deadline-ms', '100', ...socket]);
    expect(drained.code).toBe(0);
    expect(drained.stdout).toContain('draining');
    expect((await agentd.exited).code).toBe(0);
    expect(existsSync(agentd.socket)).toBe(false);
  });
});
