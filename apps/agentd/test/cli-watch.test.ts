/**
 * End to end: watching runs from the terminal. `agentd attach`, run ids in place of handles,
 * cancel on an ended run, the interactive rendering of a sync spawn on a real pty (`script`
 * from util-linux), `agentd ui`, the default config path and config errors, against the real
 * daemon and its real child processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Json } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const TOKEN = 'cli-watch-bearer-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'agentd-cli-watch-'));

/** A gate file per test: the agent prints, waits for it, prints again ("mid-run" is a fact, not a guess). */
let gates = 0;
function gate(): { path: string; open: () => void } {
  const path = join(dir, `gate-${++gates}`);
  return { path, open: () => writeFileSync(path, '') };
}

const agents = {
  gated: {
    mode: 'plain',
    command: '/bin/sh',
    // $0 is the gate file (the instruction).
    args: [
      '-c',
      'echo "first line"; echo "note on stderr" >&2; while [ ! -e "$0" ]; do sleep 0.02; done; echo "last line"',
      '{instruction}',
    ],
  },
  failing: {
    mode: 'plain',
    command: '/bin/sh',
    args: [
      '-c',
      'echo "trying"; while [ ! -e "$0" ]; do sleep 0.02; done; echo broken >&2; exit 4',
      '{instruction}',
    ],
  },
};

/** A CLI process kept running: its output so far, a wait for a text in it, and its exit code. */
function startCli(command: string, args: string[], env: NodeJS.ProcessEnv = cleanEnv()) {
  const proc: ChildProcess = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = { stdout: '', stderr: '' };
  const waiters: { text: string; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters])
      if (seen.stdout.includes(w.text) || seen.stderr.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  proc.stdout?.on('data', (c: Buffer) => {
    seen.stdout += c.toString();
    check();
  });
  proc.stderr?.on('data', (c: Buffer) => {
    seen.stderr += c.toString();
    check();
  });
  const closed = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return {
    proc,
    closed,
    seen,
    /** Resolves once `text` appeared on stdout or stderr. */
    shows(text: string): Promise<void> {
      return new Promise((resolve) => {
        waiters.push({ text, resolve });
        check();
      });
    },
  };
}

const agentdCli = (args: string[], env?: NodeJS.ProcessEnv) =>
  startCli(process.execPath, [CLI, ...args], env);

/** `agentd ARGS` inside a real pseudo-terminal: both stdout and stderr are a TTY. */
function onTerminal(args: string[], env: Record<string, string> = {}) {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const full = cleanEnv({ TERM: 'xterm', ...env });
  // Whoever runs the tests may have NO_COLOR set; a test that wants it says so.
  if (env.NO_COLOR === undefined) delete full.NO_COLOR;
  return startCli('script', ['-qfec', quoted, '/dev/null'], full);
}

async function asyncRun(socket: string[], agent: string, instruction: string): Promise<Json> {
  const started = await runCli(['spawn', '--json', '--async', ...socket, '--agent', agent, instruction]);
  expect(started.code).toBe(0);
  return JSON.parse(started.stdout) as Json;
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

let agentd: Agentd;
let classic: Agentd;
let socket: string[];

beforeAll(async () => {
  const auth = { bearerTokens: [{ name: 'ops', token: TOKEN }] };
  [agentd, classic] = await Promise.all([
    startAgentd({ http: true, config: { agents, auth } }),
    startAgentd({ config: { agents, exposure: 'classic' } }),
  ]);
  socket = ['--socket', agentd.socket];
});

afterAll(async () => {
  await Promise.all([agentd.stop(), classic.stop()]);
});

describe('agentd attach', () => {
  it.each([
    ['code mode', () => agentd],
    ['classic tools', () => classic],
  ])(
    'follows a run by its run id: the lines so far, then the rest as they come, then its result (%s)',
    async (_, daemon) => {
      const at = ['--socket', daemon().socket];
      const g = gate();
      const run = await asyncRun(at, 'gated', g.path);
      const attach = agentdCli(['attach', ...at, String(run.runId)]);
      // The line printed before attaching is replayed; the run is still waiting on its gate.
      await attach.shows('first line');
      await attach.shows('note on stderr');
      g.open();
      expect(await attach.closed).toBe(0);
      expect(attach.seen.stderr).toContain(`attached to run ${String(run.runId)} (gated, running)`);
      expect(attach.seen.stderr).toMatch(/first line\n(?:.*\n)*last line\n/);
      expect(attach.seen.stderr).toContain(`succeeded  gated  ${String(run.runId)}`);
      expect(attach.seen.stdout).toBe('first line\nlast line\n');
    },
  );

  it('exits by outcome, as wait does: 1 for a failed run, at once for one that already ended', async () => {
    const g = gate();
    const run = await asyncRun(socket, 'failing', g.path);
    const attach = agentdCli(['attach', ...socket, String(run.handle)]);
    await attach.shows('trying');
    g.open();
    expect(await attach.closed).toBe(1);
    expect(attach.seen.stderr).toContain('broken');
    expect(attach.seen.stderr).toMatch(/^failed {2}failing/m);
    const again = await runCli(['attach', '--json', ...socket, String(run.runId)]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ state: 'failed', runId: run.runId });
  });

  it('Ctrl-C stops following and leaves the run running; --timeout-ms gives up with exit 3', async () => {
    const g = gate();
    const run = await asyncRun(socket, 'gated', g.path);
    const attach = agentdCli(['attach', ...socket, String(run.runId)]);
    await attach.shows('first line');
    attach.proc.kill('SIGINT');
    expect(await attach.closed).toBe(130);
    expect(attach.seen.stderr).toContain(`detached from run ${String(run.runId)}; it goes on`);
    const gaveUp = await runCli(['attach', ...socket, String(run.runId), '--timeout-ms', '300']);
    expect(gaveUp.code).toBe(3);
    expect(gaveUp.stderr).toContain('still running after 300 ms');
    const status = await runCli(['status', '--json', ...socket, String(run.runId)]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'running' });
    g.open();
    const waited = await runCli(['wait', ...socket, String(run.runId)]);
    expect(waited.code).toBe(0);
    expect(waited.stdout).toContain('first line\nlast line');
  });
});

describe('run ids and ended runs', () => {
  it('status, wait, cancel and send take the run id spawn prints', async () => {
    const g = gate();
    const run = await asyncRun(socket, 'gated', g.path);
    const cancelled = await runCli(['cancel', '--json', ...socket, String(run.runId), '--reason', 'by id']);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      handle: run.handle,
      state: 'cancelled',
      reason: 'by id',
    });
    const warm = JSON.parse(
      (await runCli(['spawn', '--json', '--warm', ...socket, 'echo first'])).stdout,
    ) as Json;
    const turn = await runCli(['send', ...socket, String(warm.runId), 'history']);
    expect(turn.stdout).toBe('echo first\nhistory\n');
    // An idle warm session has nothing to follow: attach answers at once with its state.
    const idle = await runCli(['attach', '--json', ...socket, String(warm.runId)]);
    expect(idle.code).toBe(0);
    expect(JSON.parse(idle.stdout)).toMatchObject({ state: 'ready', warm: true, turns: 2 });
    await runCli(['cancel', ...socket, String(warm.runId)]);
    const unknown = await runCli(['status', ...socket, 'run_nothing_here']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown run run_nothing_here');
    // A run id is looked up in the inventory: a connection without operator rights is told to give the handle.
    const anonymous = await runCli(['status', '--url', agentd.httpUrl as string, String(run.runId)]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/needs an operator connection|bearer token/);
  });

  it('cancel on a run that already ended says so, with its outcome, and exits 0', async () => {
    const done = await runCli(['spawn', '--json', ...socket, 'uppercase done']);
    const run = JSON.parse(done.stdout) as Json;
    const text = await runCli(['cancel', ...socket, String(run.runId)]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^run ${String(run.runId)} had already ended: succeeded at \\S+; nothing to cancel\\n$`),
    );
    const json = await runCli(['cancel', '--json', ...socket, String(run.handle)]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ state: 'succeeded', alreadyEnded: true });
  });

  it('a wrong agent name answers in CLI terms, exit 2', async () => {
    const wrong = await runCli(['spawn', ...socket, '--agent', 'nope', 'hello']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('agentd: unknown agent "nope" (agents: example, gated, failing)\n');
    const classicWrong = await runCli(['spawn', '--socket', classic.socket, '--agent', 'nope', 'hello']);
    expect(classicWrong.stderr).toContain('unknown agent "nope" (agents: example, gated, failing)');
  });
});

describe('sync spawn on a terminal', () => {
  it('streams the output once, marks stderr lines, shows the elapsed time while silent, colours the state', async () => {
    const g = gate();
    const tty = onTerminal(['spawn', ...socket, '--agent', 'gated', g.path]);
    await tty.shows('first line');
    // The agent is now silent until the gate opens: the status line says for how long.
    await tty.shows(', silent ');
    g.open();
    expect(await tty.closed).toBe(0);
    const screen = tty.seen.stdout;
    expect(occurrences(screen, 'first line')).toBe(1);
    expect(occurrences(screen, 'last line')).toBe(1);
    expect(screen).toContain('\u001b[33m!\u001b[0m note on stderr');
    expect(screen).toContain('\u001b[36mrunning\u001b[0m ');
    expect(screen).toContain(', silent ');
    expect(screen).toContain('\u001b[32msucceeded\u001b[0m  gated');
  });

  it('NO_COLOR keeps the layout without colour; piped output stays plain text', async () => {
    const g = gate();
    g.open();
    const tty = onTerminal(['spawn', ...socket, '--agent', 'gated', g.path], { NO_COLOR: '1' });
    expect(await tty.closed).toBe(0);
    expect(tty.seen.stdout).toContain('! note on stderr');
    // Without colour the only escape left is the status line's erase (drawn if the agent was slow).
    expect(tty.seen.stdout.replaceAll('\r\u001b[2K', '')).not.toContain('\u001b');
    expect(occurrences(tty.seen.stdout, 'last line')).toBe(1);
    const piped = await runCli(['spawn', ...socket, '--agent', 'gated', g.path]);
    expect(piped.stdout).toBe('first line\nlast line\n');
    expect(piped.stderr).not.toContain('\u001b');
    expect(piped.stderr).toContain('\nnote on stderr\n');
  });

  it('runs colours its states on a terminal only', async () => {
    expect((await runCli(['spawn', ...socket, 'uppercase a finished run'])).code).toBe(0);
    const tty = onTerminal(['runs', ...socket]);
    expect(await tty.closed).toBe(0);
    expect(tty.seen.stdout).toContain('\u001b[32msucceeded');
    const piped = await runCli(['runs', ...socket]);
    expect(piped.stdout).not.toContain('\u001b');
  });
});

describe('agentd ui', () => {
  it("prints the dashboard URL of the daemon's HTTP listener, over the socket and over --url", async () => {
    const expected = new URL('/ui/', agentd.httpUrl).href;
    const viaSocket = await runCli(['ui', ...socket]);
    expect(viaSocket.code).toBe(0);
    expect(viaSocket.stdout).toBe(`${expected}\n`);
    const viaUrl = await runCli(['ui', '--url', agentd.httpUrl as string]);
    expect(viaUrl.stdout).toBe(`${expected}\n`);
    const none = await runCli(['ui', '--socket', classic.socket]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no HTTP listener');
  });
});

describe('configuration', () => {
  it('finds the daemon through ~/.config/agentd/agentd.json (or $XDG_CONFIG_HOME) without --config', async () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.config', 'agentd'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'agentd', 'agentd.json'),
      JSON.stringify({ serve: [`unix:${agentd.socket}`] }),
    );
    const viaHome = await runCli(['status', '--json'], cleanEnv({ HOME: home }));
    expect(viaHome.code).toBe(0);
    expect(JSON.parse(viaHome.stdout)).toMatchObject({ pid: agentd.proc.pid });
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'agentd'), { recursive: true });
    writeFileSync(join(xdg, 'agentd', 'agentd.json'), JSON.stringify({ serve: [`unix:${classic.socket}`] }));
    const viaXdg = await runCli(['status', '--json'], cleanEnv({ HOME: home, XDG_CONFIG_HOME: xdg }));
    expect(JSON.parse(viaXdg.stdout)).toMatchObject({ pid: classic.proc.pid });
  });

  it('config errors suggest the nearest key and place JSON syntax errors by line and column', async () => {
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ defaultAgnt: 'example' }));
    const wrongKey = await runCli(['config', 'check', typo]);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toContain(
      "/defaultAgnt: unknown key 'defaultAgnt' (did you mean `defaultAgent`?)",
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "logLevel": "info",\n  "agents": {,}\n}\n');
    const syntax = await runCli(['config', 'check', broken]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toContain('not valid JSON at line 3, column 14:');
  });
});
