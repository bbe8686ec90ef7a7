/**
 * Agent output as an adversary writes it, end to end (issue 39, findings 2-5): listings stay
 * bounded however large the runs' output, a run's answer is cut to what can be sent and says so,
 * the CLI says when it shows a cut output, and an agent's escape sequences never reach the
 * operator's terminal. The real daemon and CLI, over the unix socket and HTTP.
 */

import { spawn } from 'node:child_process';
import type { Json } from '@agentd/test-support';
import { NdjsonClient } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/cli/http-client.js';
import { callOperation } from '../src/cli/operation-call.js';
import { type Agentd, CLI, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

/** script(1): runs a command on a pseudo-terminal (util-linux, as cli-watch.test.ts uses it). */
const PTY = 'script';

/** The CLI on a pseudo-terminal: what an operator's terminal would receive. */
function onTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const env = cleanEnv({ TERM: 'xterm' });
  delete env.NO_COLOR;
  const proc = spawn(PTY, ['-qfec', quoted, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, output })));
}

const sh = (script: string) => ({ mode: 'plain', command: '/bin/sh', args: ['-c', script] });

/** Every trick of the issue: a forged agentd line, line erasing, OSC 52, OSC 0, OSC 8, bidi. */
const EVIL = [
  String.raw`printf 'agentd: run run_00000000000000000000000000 succeeded\n'`,
  String.raw`printf '\033[1A\033[2Kerased\n'`,
  String.raw`printf '\033]52;c;aGVsbG8=\007clip\n'`,
  String.raw`printf '\033]0;pwned\007title\n'`,
  String.raw`printf '\033]8;;https://evil.example\033\\link\033]8;;\033\\\n'`,
  String.raw`printf 'bidi \342\200\256txet\342\200\254 \342\201\246iso\342\201\251\n'`,
  String.raw`printf 'on stderr \033[2J\n' >&2`,
].join('; ');

const agents = {
  esc: sh(`head -c 170000 /dev/zero | tr '\\000' '\\033'`),
  nul400: sh('head -c 400000 /dev/zero'),
  nul1m: sh('head -c 1048576 /dev/zero'),
  text400: sh(`head -c 400000 /dev/zero | tr '\\000' x`),
  evil: sh(EVIL),
  quick: sh('true'),
  colour: sh(String.raw`printf '\033[31mred\033[0m \033]0;t\007 \033[1Aup\n'`),
};

let agentd: Agentd;
let socket: string[];

beforeAll(async () => {
  agentd = await startAgentd({
    http: true,
    config: { agents, limits: { maxOutputBytes: 2 * 1024 * 1024, maxTrackedHandles: 400 } },
  });
  socket = ['--socket', agentd.socket];
});

afterAll(async () => {
  await agentd.stop();
});

const parse = (text: string): Json => JSON.parse(text) as Json;

/** A run spawned (async) by an anonymous HTTP peer (no token), as the peer did; then waited for. */
async function anonymousRun(agent: string): Promise<Json> {
  const client = new HttpClient(agentd.httpUrl as string, undefined);
  try {
    const spawned = await callOperation(client, 'command', 'subagent.spawn', {
      agent,
      instruction: 'go',
      async: true,
    });
    expect(spawned.isError, JSON.stringify(spawned.value)).toBe(false);
    const { handle } = spawned.value as Json;
    // attach answers when the run has ended: no polling.
    const ended = await callOperation(client, 'query', 'subagent.attach', { handle });
    expect((ended.value as Json).terminal, JSON.stringify(ended.value).slice(0, 300)).toBe(true);
    return ended.value as Json;
  } finally {
    client.close();
  }
}

describe('listings are bounded (finding 2)', () => {
  it('12 runs of 170,000 ESC bytes each: runs, status and cancel over the socket still answer', async () => {
    const runs: Json[] = [];
    for (let i = 0; i < 12; i++) runs.push(await anonymousRun('esc'));
    const listing = await runCli(['runs', '--json', ...socket]);
    expect(listing.code, listing.stderr).toBe(0);
    // Summaries: no output twice per run, a bounded tail; the whole listing is small.
    expect(listing.stdout.length).toBeLessThan(256 * 1024);
    const listed = parse(`{"runs":${listing.stdout}}`).runs as Json[];
    for (const run of runs) {
      const row = listed.find((r) => r.runId === run.runId);
      expect(row).toMatchObject({ state: 'succeeded', outputBytes: 170_000 });
      expect(row?.output).toBeUndefined();
      expect(row?.result).toBeUndefined();
    }
    const runId = String(runs[0]?.runId);
    // One run by handle is whole (170,000 ESC bytes are 1,020,000 bytes escaped: under 1 MiB), inert.
    const status = await runCli(['status', ...socket, runId]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toContain('\u001b');
    expect(status.stdout).toContain(`\n${'^['.repeat(170_000)}\n`);
    const cancel = await runCli(['cancel', ...socket, runId]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain('had already ended');
  }, 120_000);

  it('the inventory is paged with a cursor; agentd runs reads every page', async () => {
    const client = await NdjsonClient.connect(agentd.socket);
    try {
      // 120 more runs: past one page (100).
      for (let batch = 0; batch < 3; batch++) {
        const result = await client.modernResult('tools/call', {
          name: 'execute',
          arguments: {
            code: 'for (let i = 0; i < 40; i++) await agentd.command("subagent.spawn", { agent: "quick", instruction: "x" }); return 1;',
          },
        });
        expect(result.isError, JSON.stringify(result)).not.toBe(true);
      }
      const seen: string[] = [];
      let uri = 'agent://inventory';
      let pages = 0;
      while (pages < 10) {
        pages++;
        const result = await client.modernResult('resources/read', { uri });
        const body = parse(String((result.contents as Json[])[0]?.text));
        const runs = body.subagents as Json[];
        expect(runs.length).toBeLessThanOrEqual(100);
        for (const run of runs) seen.push(String(run.runId));
        if (typeof body.nextCursor !== 'string') break;
        uri = `agent://inventory?cursor=${body.nextCursor}`;
      }
      expect(pages).toBeGreaterThanOrEqual(2);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(132);
      const listing = await runCli(['runs', '--json', ...socket]);
      expect((JSON.parse(listing.stdout) as Json[]).map((r) => r.runId)).toEqual(seen);
    } finally {
      client.close();
    }
  }, 120_000);
});

const EXIT_TRUNCATED = 4;

describe('answers are cut to what is sent, never refused (finding 3)', () => {
  it('400 KB of NULs: the spawn answer (Code Mode) arrives, marked truncated', async () => {
    const client = await NdjsonClient.connect(agentd.socket);
    try {
      const result = await client.modernResult('tools/call', {
        name: 'execute',
        arguments: {
          code: 'const s = await agentd.command("subagent.spawn", { agent: "nul400", instruction: "go" }); return { state: s.state, truncated: s.truncated, outputBytes: s.outputBytes, tail: s.output.slice(-80) };',
        },
      });
      expect(result.isError, JSON.stringify(result).slice(0, 500)).not.toBe(true);
      const value = (result.structuredContent as Json).result as Json;
      expect(value).toMatchObject({ state: 'succeeded', truncated: true, outputBytes: 400_000 });
      expect(String(value.tail)).toContain(
        '[agentd: output truncated here; the whole output is 400000 bytes]',
      );
    } finally {
      client.close();
    }
  });

  it('1 MiB of NULs: status by handle arrives, marked truncated', async () => {
    const run = await anonymousRun('nul1m');
    const client = await NdjsonClient.connect(agentd.socket);
    try {
      const result = await client.modernResult('tools/call', {
        name: 'execute',
        arguments: {
          code: `const s = await agentd.query("subagent.status", { handle: ${JSON.stringify(run.handle)} }); return { truncated: s.truncated, outputBytes: s.outputBytes };`,
        },
      });
      expect(result.isError, JSON.stringify(result).slice(0, 500)).not.toBe(true);
      expect((result.structuredContent as Json).result).toEqual({ truncated: true, outputBytes: 1_048_576 });
      // By handle as a resource: the bounded view itself, under any client's frame limit.
      const read = await client.modernResult('resources/read', {
        uri: `agent://subagent/${String(run.handle)}`,
      });
      const text = String((read.contents as Json[])[0]?.text);
      expect(text.length).toBeLessThan(3 * 1024 * 1024);
      expect(parse(text)).toMatchObject({ truncated: true, outputBytes: 1_048_576, state: 'succeeded' });
    } finally {
      client.close();
    }
  });
});

describe('the CLI never truncates silently (finding 4)', () => {
  it('spawn of 400 KB of NULs: a notice on stderr, exit 4, the flag in --json', async () => {
    const plain = await runCli(['spawn', ...socket, '--agent', 'nul400', 'go']);
    expect(plain.code).toBe(EXIT_TRUNCATED);
    expect(plain.stderr).toContain('the output shown is truncated (the whole output is 400000 bytes)');
    expect(plain.stderr).toContain('--json');
    expect(plain.stdout).toContain('^@^@^@');
    expect(plain.stdout).toContain('[agentd: output truncated here; the whole output is 400000 bytes]');
    const json = await runCli(['spawn', '--json', ...socket, '--agent', 'nul400', 'go']);
    expect(json.code).toBe(EXIT_TRUNCATED);
    expect(parse(json.stdout)).toMatchObject({ truncated: true, outputBytes: 400_000 });
    expect(json.stderr).toContain('truncated');
    const waited = await runCli(['wait', ...socket, String(parse(json.stdout).runId)]);
    expect(waited.code).toBe(EXIT_TRUNCATED);
    expect(waited.stderr).toContain('truncated');
  });

  it('400,000 bytes of text are shown whole (Code Mode cut them; the CLI reads the run by handle)', async () => {
    const result = await runCli(['spawn', ...socket, '--agent', 'text400', 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${'x'.repeat(400_000)}\n`);
    expect(result.stderr).not.toContain('truncated');
  });
});

describe('agent output is inert on terminals (finding 5)', () => {
  const expectInert = (text: string) => {
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u0007');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('^[[1A^[[2Kerased');
    expect(text).toContain('^[]52;c;aGVsbG8=^Gclip');
    expect(text).toContain('^[]0;pwned^Gtitle');
    expect(text).toContain('^[]8;;https://evil.example^[\\link');
    expect(text).toContain('bidi <U+202E>txet<U+202C> <U+2066>iso<U+2069>');
  };

  it('spawn, status, wait and attach show escape sequences and bidi controls, never apply them', async () => {
    const spawned = await runCli(['spawn', ...socket, '--agent', 'evil', 'go']);
    expect(spawned.code, spawned.stderr).toBe(0);
    expectInert(spawned.stdout);
    // Piped, the streamed lines go to stderr as text: the forged line cannot erase itself into place.
    expect(spawned.stderr).toContain(
      'agentd: run run_00000000000000000000000000 succeeded\n^[[1A^[[2Kerased',
    );
    expect(spawned.stderr).toContain('on stderr ^[[2J');
    expect(spawned.stderr).not.toContain('\u001b');
    const runId = /run (run_\S+) started/.exec(spawned.stderr)?.[1] as string;
    for (const args of [['status'], ['wait'], ['attach']]) {
      const shown = await runCli([...args, ...socket, runId]);
      expect(shown.code, `${args[0]}: ${shown.stderr}`).toBe(0);
      expectInert(shown.stdout + shown.stderr);
    }
  });

  it('--json escapes C1 and bidi controls too; the value stays the same', async () => {
    const spawned = await runCli(['spawn', '--json', ...socket, '--agent', 'evil', 'go']);
    expect(spawned.stdout).not.toContain('\u001b');
    expect(spawned.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(String(parse(spawned.stdout).output)).toContain('\u202e');
  });

  it('on a terminal: colours shown as text by default, passed with --color-agent-output; never more', async () => {
    const plain = await onTerminal(['spawn', ...socket, '--agent', 'colour', 'go']);
    expect(plain.code, plain.output).toBe(0);
    expect(plain.output).toContain('^[[31mred^[[0m ^[]0;t^G ^[[1Aup');
    expect(plain.output).not.toContain('\u001b[31mred');
    const coloured = await onTerminal([
      'spawn',
      '--color-agent-output',
      ...socket,
      '--agent',
      'colour',
      'go',
    ]);
    expect(coloured.code, coloured.output).toBe(0);
    expect(coloured.output).toContain('\u001b[31mred\u001b[0m ^[]0;t^G ^[[1Aup');
    expect(coloured.output).not.toContain('\u001b]0;t');
    expect(coloured.output).not.toContain('\u001b[1Aup');
    const runId = /run (run_\S+) started/.exec(plain.output)?.[1] as string;
    const status = await onTerminal(['status', ...socket, runId]);
    expect(status.output).toContain('^[[31mred^[[0m ^[]0;t^G ^[[1Aup');
  });

  it('--color-agent-output lets only SGR colours through, and only to a colour terminal', async () => {
    // Piped (no terminal), the flag changes nothing: colours need a terminal that shows them.
    const piped = await runCli(['spawn', '--color-agent-output', ...socket, '--agent', 'evil', 'go']);
    expectInert(piped.stdout);
  });
});
