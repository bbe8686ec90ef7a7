/**
 * Issue 36 item 6, "kill -9 during a write", through real processes: agentd is killed with SIGKILL
 * in the middle of a real write of a real record (the test hook TEST_AGENTD_KILL_MID_WRITE,
 * src/history/kill-mid-write.ts, writes half of the marked bytes and kills the process), then
 * restarted on the same state directory: every earlier run and event is intact byte for byte, the
 * run that was live is `lost` with the events it had, the torn tail is cut off (a warning names its
 * file; nothing is set aside as corrupt), and the store goes on keeping new runs.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Json, NdjsonClient, toolValue } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TEST_AGENT_CONFIG } from '../src/supervisor/test-support/test-agent.js';
import { type Agentd, runCli, startAgentd } from './support/agentd-process.js';

const MARKER = 'KILL-MID-WRITE';
/** What the hook leaves on disk: the marker's first half. */
const HALF = MARKER.slice(0, MARKER.length / 2);
const CUT_MSG = 'run store file ended in a partial write: cut off';
const CONFIG: Json = {
  agents: {
    // Protocol runs store no output events: what a turn answers is first written in the run's record.
    example: TEST_AGENT_CONFIG,
    // Two output lines per run, so earlier runs have event logs to keep.
    echoer: {
      mode: 'plain',
      command: '/bin/sh',
      args: ['-c', 'echo "$1"; echo "end-$1"', 'sh', '{instruction}'],
    },
    // The instruction is a path: its `.pid` for the test to end it (agentd dies without stopping
    // it); its `.go`, created by the test once the run's record and first lines are on disk, lets
    // it print the marker (the shell joins the halves: the marker is in its output only).
    killer: {
      mode: 'plain',
      command: '/bin/sh',
      args: [
        '-c',
        'echo $$ > "$1.pid"; echo before-1; echo before-2; while [ ! -e "$1.go" ]; do sleep 0.05; done; echo "KILL-MID""-WRITE"; exec sleep 60',
        'sh',
        '{instruction}',
      ],
    },
  },
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Resolves once agentd serves and its start-up log (through `run history`) has been read. */
async function start(state: string, armed: boolean): Promise<Agentd> {
  const agentd = await startAgentd({
    args: ['--exposure', 'classic', '--no-watch'],
    config: CONFIG,
    env: { XDG_STATE_HOME: state, ...(armed ? { TEST_AGENTD_KILL_MID_WRITE: MARKER } : {}) },
  });
  // stdout says "listening" before stderr's lines may have arrived: the history's report is last.
  await agentd.waitForLog((l) => l.msg === 'run history');
  return agentd;
}

function tool(client: NdjsonClient, name: string, args: Json = {}): Promise<Json> {
  return client.modernResult('tools/call', { name, arguments: args });
}

async function cli(agentd: Agentd, ...args: string[]): Promise<string> {
  const out = await runCli([...args, '--socket', agentd.socket]);
  expect(out.stderr).toBe('');
  return out.stdout;
}

async function spawnEcho(client: NdjsonClient, word: string): Promise<Json> {
  const run = toolValue(await tool(client, 'command_subagent.spawn', { agent: 'echoer', instruction: word }));
  expect(run).toMatchObject({ state: 'succeeded', output: `${word}\nend-${word}` });
  return run;
}

/** Resolves once a whole (newline-ended) line of the file holds `text`. */
async function onDisk(path: string, text: string): Promise<void> {
  await vi.waitFor(
    () => {
      const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(0, -1) : [];
      expect(
        lines.some((line) => line.includes(text)),
        `${text} in ${path}`,
      ).toBe(true);
    },
    { timeout: 20_000, interval: 20 },
  );
}

/**
 * Two finished runs (with event logs), then `live` starts a run and, once its record is on disk,
 * makes it write the marker: the armed daemon kills itself in the middle of that write.
 */
async function crash(
  state: string,
  live: (client: NdjsonClient, index: string) => Promise<Json>,
): Promise<{ earlier: Json[]; live: Json }> {
  const first = await start(state, true);
  // Should the hook not fire, the test fails on its timeout: the armed daemon must not outlive it.
  cleanups.push(() => first.proc.kill('SIGKILL'));
  const c = await NdjsonClient.connect(first.socket);
  const earlier = [await spawnEcho(c, 'first-run'), await spawnEcho(c, 'second-run')];
  const run = await live(c, join(state, 'agentd', 'history', 'index.jsonl'));
  expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
  c.stream.end();
  return { earlier, live: run };
}

/** Ends the killer agent's process group, which agentd's death left running. */
function reapKiller(pidFile: string): void {
  cleanups.push(() => {
    if (!existsSync(pidFile)) return;
    try {
      process.kill(-Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
    } catch {}
  });
}

/** The restarted daemon's account of the crash: the cut file, the lost run, nothing corrupt. */
function expectRepairReport(agentd: Agentd, path: string, lostRunId: string, dropped: number): void {
  const cuts = agentd.logs.filter((l) => l.msg === CUT_MSG);
  expect(cuts).toEqual([expect.objectContaining({ level: 'warning', path, droppedBytes: dropped })]);
  expect(agentd.logs.find((l) => l.msg === 'run history')).toMatchObject({ lost: [lostRunId] });
  expect(agentd.logs.filter((l) => l.level === 'error')).toEqual([]);
  expect(existsSync(join(path, '..', 'corrupt'))).toBe(false);
  expect(existsSync(join(path, '..', '..', 'corrupt'))).toBe(false);
}

/** Earlier runs answer whole: status, the whole log; the lost one `lost`; the listing newest first. */
async function expectIntact(agentd: Agentd, earlier: Json[], lost: Json, lostLog: string): Promise<void> {
  const c = await NdjsonClient.connect(agentd.socket);
  try {
    for (const run of earlier) {
      const status = toolValue(await tool(c, 'query_subagent.status', { handle: run.handle }));
      expect(status).toMatchObject({ runId: run.runId, state: 'succeeded', output: run.output });
      expect(await cli(agentd, 'logs', String(run.handle))).toBe(`${String(run.output)}\n`);
    }
    const gone = toolValue(await tool(c, 'query_subagent.status', { handle: lost.handle }));
    expect(gone).toMatchObject({ runId: lost.runId, state: 'lost', terminal: true });
    expect(await cli(agentd, 'logs', String(lost.handle))).toBe(lostLog);
  } finally {
    c.stream.end();
  }
  const all = JSON.parse(await cli(agentd, 'runs', '--all', '--json')) as { runs: Json[] };
  expect(all.runs.map((r) => [r.runId, r.state])).toEqual([
    [lost.runId, 'lost'],
    [earlier[1]?.runId, 'succeeded'],
    [earlier[0]?.runId, 'succeeded'],
  ]);
}

/** The repaired store keeps new runs: one run now, found whole after a clean restart. */
async function expectStillKeeping(state: string, agentd: Agentd): Promise<void> {
  const c = await NdjsonClient.connect(agentd.socket);
  const fresh = await spawnEcho(c, 'after-restart');
  c.stream.end();
  await agentd.stop();
  const third = await start(state, false);
  try {
    expect(third.logs.filter((l) => l.msg === CUT_MSG || l.level === 'error')).toEqual([]);
    const c3 = await NdjsonClient.connect(third.socket);
    const status = toolValue(await tool(c3, 'query_subagent.status', { handle: fresh.handle }));
    c3.stream.end();
    expect(status).toMatchObject({ runId: fresh.runId, state: 'succeeded', output: fresh.output });
    expect(await cli(third, 'logs', String(fresh.handle))).toBe('after-restart\nend-after-restart\n');
  } finally {
    await third.stop();
  }
}

async function lostRun(agentd: Agentd, runId: string): Promise<Json> {
  const all = JSON.parse(await cli(agentd, 'runs', '--all', '--json', '--state', 'lost')) as { runs: Json[] };
  const run = all.runs.find((r) => r.runId === runId);
  expect(run).toBeDefined();
  return run as Json;
}

describe('kill -9 during a write', () => {
  it('an event cut mid-line: earlier runs and events intact, the live run lost, the torn event dropped', async () => {
    const state = mkdtempSync(join(tmpdir(), 'agentd-crash-'));
    const base = join(state, 'killer');
    reapKiller(`${base}.pid`);
    const events = join(state, 'agentd', 'history', 'events');
    const { earlier, live } = await crash(state, async (c, index) => {
      const run = toolValue(
        await tool(c, 'command_subagent.spawn', { agent: 'killer', instruction: base, async: true }),
      );
      await onDisk(index, `"runId":"${String(run.runId)}"`);
      await onDisk(join(events, `${String(run.runId)}.jsonl`), 'before-2');
      writeFileSync(`${base}.go`, '');
      return run;
    });
    const killerRunId = String(live.runId);
    const log = join(events, `${killerRunId}.jsonl`);
    const torn = readFileSync(log, 'utf8');
    // Really cut inside the line: half the marker on disk, no newline after it.
    expect(torn).toContain(HALF);
    expect(torn).not.toContain(MARKER);
    expect(torn.endsWith('\n')).toBe(false);
    const whole = torn.slice(0, torn.lastIndexOf('\n') + 1);
    const earlierLogs = earlier.map((run) =>
      readFileSync(join(events, `${String(run.runId)}.jsonl`), 'utf8'),
    );

    const second = await start(state, false);
    try {
      expectRepairReport(second, log, killerRunId, Buffer.byteLength(torn) - Buffer.byteLength(whole));
      // Only the torn line went; every whole line before it, and every other log, is as it was.
      expect(readFileSync(log, 'utf8')).toBe(whole);
      expect(earlier.map((run) => readFileSync(join(events, `${String(run.runId)}.jsonl`), 'utf8'))).toEqual(
        earlierLogs,
      );
      await expectIntact(second, earlier, await lostRun(second, killerRunId), 'before-1\nbefore-2\n');
      expect(await lostRun(second, killerRunId)).toMatchObject({ handle: live.handle });
      await expectStillKeeping(state, second);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('a run record cut mid-line in the index: earlier runs intact, the live session lost, the torn record dropped', async () => {
    const state = mkdtempSync(join(tmpdir(), 'agentd-crash-'));
    // A warm session, on disk; then a turn that answers the marker: its record is cut.
    const { earlier, live } = await crash(state, async (c, index) => {
      const session = toolValue(
        await tool(c, 'command_subagent.spawn', {
          agent: 'example',
          instruction: 'echo warm-up',
          warm: true,
        }),
      );
      expect(session).toMatchObject({ state: 'ready', warm: true });
      await onDisk(index, `"runId":"${String(session.runId)}"`);
      // The daemon dies while answering: the call's outcome does not matter.
      await tool(c, 'command_subagent.send', { handle: session.handle, message: `echo ${MARKER}` }).catch(
        () => undefined,
      );
      return session;
    });
    const path = join(state, 'agentd', 'history', 'index.jsonl');
    const torn = readFileSync(path, 'utf8');
    expect(torn).toContain(HALF);
    expect(torn).not.toContain(MARKER);
    expect(torn.endsWith('\n')).toBe(false);
    const lines = torn.split('\n');
    // The last whole line is the session's, live; the cut one after it is its record after the turn.
    const last = JSON.parse(String(lines.at(-2)).slice(9)) as Json;
    expect(last).toMatchObject({ runId: live.runId, terminal: false });
    expect(String(lines.at(-1))).toContain(String(live.runId));
    const whole = lines.slice(0, -1).join('\n');

    const second = await start(state, false);
    try {
      expectRepairReport(
        second,
        path,
        String(live.runId),
        Buffer.byteLength(torn) - Buffer.byteLength(whole) - 1,
      );
      await expectIntact(second, earlier, await lostRun(second, String(live.runId)), '');
      await expectStillKeeping(state, second);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
