/** Supervisor runs against real children: sync, async, plain mode, failures, timeouts, events. */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { disposeAll, makeSupervisor, sh, statusWhen, testProfiles } from './test-support/fixtures.js';
import type { AgentEvent, LogEntry, SubagentStatus } from './types.js';

afterEach(disposeAll);

describe('sync runs', () => {
  it('runs the example agent and returns its result', async () => {
    const supervisor = makeSupervisor();
    const status = await supervisor.spawn({ instruction: 'uppercase hello world' });
    expect(status).toMatchObject({
      state: 'succeeded',
      terminal: true,
      agent: 'example',
      mode: 'protocol',
      output: 'HELLO WORLD',
      result: { text: 'HELLO WORLD' },
      turns: 1,
      warm: false,
      busy: false,
    });
    expect(status.endedAt).toBeDefined();
    expect(status.error).toBeUndefined();
    expect(status.handle).toMatch(/^sa_[A-Za-z0-9_-]{22}$/);
    expect(status.runId).toMatch(/^run_/);
    expect(supervisor.status(status.handle)).toEqual(status);
    expect(supervisor.statusByRunId(status.runId)).toEqual(status);
    expect(supervisor.statusByRunId('run_unknown')).toBeUndefined();
  });

  it('returns structured data the agent computed', async () => {
    const status = await makeSupervisor().spawn({ instruction: 'count words the quick brown fox' });
    expect(status.result).toEqual({ text: '4 words', data: { words: 4, characters: 19 } });
  });

  it('wraps a plain command unchanged: instruction on stdin, stdout is the result', async () => {
    const supervisor = makeSupervisor();
    const upper = await supervisor.spawn({ agent: 'upper', instruction: 'shout this' });
    expect(upper).toMatchObject({
      state: 'succeeded',
      mode: 'plain',
      output: 'SHOUT THIS',
      result: { text: 'SHOUT THIS' },
    });
    const cat = await supervisor.spawn({ agent: 'cat', instruction: 'line one\nline two\n' });
    expect(cat.output).toBe('line one\nline two');
  });

  it('reports a plain command that exits non-zero with its code and stderr tail', async () => {
    const supervisor = makeSupervisor({
      profiles: [...testProfiles(), sh('bad', 'echo partial; echo "it broke" >&2; exit 7')],
    });
    const status = await supervisor.spawn({ agent: 'bad', instruction: 'x' });
    expect(status.state).toBe('failed');
    expect(status.output).toBe('partial');
    expect(status.error).toMatchObject({ code: 'exit_nonzero', exitCode: 7, signal: null });
    expect(status.error?.stderrTail).toContain('it broke');
    expect(status.error?.message).toContain('code 7');
  });

  it('reports an agent error answer as a failed run', async () => {
    const status = await makeSupervisor().spawn({ instruction: 'fail the disk is on fire' });
    expect(status.state).toBe('failed');
    expect(status.error).toEqual({
      code: 'agent_error',
      message: 'the disk is on fire',
      data: { instructed: true },
    });
  });

  it('reports a child that dies mid-run with its exit code and stderr tail', async () => {
    const status = await makeSupervisor().spawn({ instruction: 'crash 5' });
    expect(status.state).toBe('failed');
    expect(status.error).toMatchObject({ code: 'crashed', exitCode: 5, signal: null });
    expect(status.error?.stderrTail).toContain('crashing as instructed');
    expect(status.error?.message).toContain('before answering');
  });

  it('reports a command that cannot be started', async () => {
    const supervisor = makeSupervisor({
      profiles: [
        ...testProfiles(),
        { name: 'missing', mode: 'plain', command: '/nonexistent/agentd-test-cmd' },
      ],
    });
    const status = await supervisor.spawn({ agent: 'missing', instruction: 'x' });
    expect(status.state).toBe('failed');
    expect(status.error?.code).toBe('spawn_failed');
    expect(status.error?.message).toContain('ENOENT');
  });

  it('fails a protocol agent that writes a non-protocol line to stdout', async () => {
    const status = await makeSupervisor().spawn({ instruction: 'garbage' });
    expect(status.state).toBe('failed');
    expect(status.error?.code).toBe('protocol_error');
    expect(status.error?.message).toContain('not a JSON-RPC message');
  });

  it('keeps only a bounded stderr tail', async () => {
    const supervisor = makeSupervisor({
      profiles: [
        ...testProfiles(),
        sh('noisy', 'head -c 20000 /dev/zero | tr "\\0" e >&2; printf END >&2; exit 1'),
      ],
      limits: { stderrTailBytes: 100 },
    });
    const status = await supervisor.spawn({ agent: 'noisy', instruction: 'x' });
    const tail = status.error?.stderrTail ?? '';
    expect(tail.startsWith('…')).toBe(true);
    expect(tail.endsWith('END')).toBe(true);
    expect(tail.length).toBe(101);
  });

  it('passes profile env and cwd, and can withhold the daemon environment', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'agentd-sup-')));
    process.env.AGENTD_TEST_SECRET = 'daemon-only';
    try {
      const supervisor = makeSupervisor({
        profiles: [
          ...testProfiles(),
          { ...sh('envy', 'echo "$GREETING/$AGENTD_TEST_SECRET/$(pwd)"'), env: { GREETING: 'hi' }, cwd: dir },
          {
            ...sh('sealed', 'echo "$GREETING/$AGENTD_TEST_SECRET"'),
            env: { GREETING: 'hi' },
            inheritEnv: false,
          },
        ],
      });
      expect((await supervisor.spawn({ agent: 'envy', instruction: 'x' })).output).toBe(
        `hi/daemon-only/${dir}`,
      );
      expect((await supervisor.spawn({ agent: 'sealed', instruction: 'x' })).output).toBe('hi/');
    } finally {
      delete process.env.AGENTD_TEST_SECRET;
    }
  });
});

describe('timeouts and output limits', () => {
  it('kills a hanging protocol child at its timeout', async () => {
    const status = await makeSupervisor().spawn({ instruction: 'hang', timeoutMs: 300 });
    expect(status.state).toBe('timed_out');
    expect(status.error).toMatchObject({ code: 'timeout', message: 'timed out after 300 ms' });
  });

  it('escalates to SIGKILL when a child ignores SIGTERM', async () => {
    const supervisor = makeSupervisor();
    const deaf = new Promise<void>((resolve) => {
      supervisor.on('event', (_handle, event) => {
        if (event.message === 'ignoring SIGTERM from now on') resolve();
      });
    });
    const run = await supervisor.spawn({ instruction: 'hang-hard', async: true });
    await deaf;
    const status = await supervisor.cancel(run.handle);
    expect(status.state).toBe('cancelled');
    expect(status.error?.signal).toBe('SIGKILL');
    expect(status.error?.stderrTail).toContain('ignoring SIGTERM');
  });

  it('kills a hanging plain child at the profile timeout', async () => {
    const supervisor = makeSupervisor({
      profiles: [...testProfiles(), sh('slow', 'sleep 30', { timeoutMs: 250 })],
    });
    const status = await supervisor.spawn({ agent: 'slow', instruction: 'x' });
    expect(status.state).toBe('timed_out');
    expect(status.error?.signal).toBe('SIGTERM');
  });

  it('kills a plain child whose output exceeds maxOutputBytes', async () => {
    const supervisor = makeSupervisor({
      profiles: [...testProfiles(), sh('flood', 'yes flood')],
      limits: { maxOutputBytes: 1000 },
    });
    const status = await supervisor.spawn({ agent: 'flood', instruction: 'x' });
    expect(status.state).toBe('failed');
    expect(status.error).toMatchObject({
      code: 'output_too_large',
      message: 'output exceeded the limit of 1000 bytes',
    });
  });

  it('kills a protocol child whose result exceeds maxOutputBytes', async () => {
    const supervisor = makeSupervisor({ limits: { maxOutputBytes: 1000 } });
    const ok = await supervisor.spawn({ instruction: 'big 500' });
    expect(ok.output).toHaveLength(500);
    const status = await supervisor.spawn({ instruction: 'big 5000' });
    expect(status.state).toBe('failed');
    expect(status.error?.code).toBe('output_too_large');
  });
});

describe('async runs and events', () => {
  it('returns a running handle, then reaches its result', async () => {
    const supervisor = makeSupervisor();
    const started = await supervisor.spawn({ instruction: 'sleep 150', async: true });
    expect(started).toMatchObject({ state: 'running', terminal: false });
    expect(started.pid).toBeGreaterThan(0);
    await statusWhen(supervisor, started.handle, (s) => s.terminal);
    expect(supervisor.status(started.handle)).toMatchObject({ state: 'succeeded', output: 'slept 150 ms' });
  });

  it('emits every state change, agent progress events and agent logs', async () => {
    const supervisor = makeSupervisor();
    const states: SubagentStatus['state'][] = [];
    const events: AgentEvent[] = [];
    const logs: LogEntry[] = [];
    supervisor.on('status', (status) => states.push(status.state));
    supervisor.on('event', (_handle, event) => events.push(event));
    supervisor.on('log', (entry) => logs.push(entry));
    await supervisor.spawn({ instruction: 'sleep 40' });
    expect(states).toEqual(['starting', 'running', 'succeeded']);
    expect(events.filter((event) => event.type === 'progress').map((event) => event.progress)).toEqual([
      1, 2, 3, 4,
    ]);
    await supervisor.spawn({ instruction: 'log something happened' });
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'something happened', source: 'agent' }),
    );
    expect(logs.some((entry) => entry.msg === 'subagent ended' && entry.state === 'succeeded')).toBe(true);
  });

  it('lets a spawn caller see its handle at once and its own events', async () => {
    const supervisor = makeSupervisor();
    const started: string[] = [];
    const progress: unknown[] = [];
    const other = supervisor.spawn({ instruction: 'sleep 40' });
    const status = await supervisor.spawn({ instruction: 'sleep 40' }, undefined, {
      onStart: (s) => started.push(`${s.state}:${s.handle}`),
      onEvent: (event) => progress.push(event.progress),
    });
    await other;
    expect(started).toEqual([`starting:${status.handle}`]);
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('survives a listener that throws', async () => {
    const supervisor = makeSupervisor();
    const logs: LogEntry[] = [];
    supervisor.on('status', () => {
      throw new Error('listener bug');
    });
    supervisor.on('log', (entry) => logs.push(entry));
    const status = await supervisor.spawn({ instruction: 'echo fine' });
    expect(status.output).toBe('fine');
    expect(logs.some((entry) => entry.msg === 'supervisor listener threw')).toBe(true);
  });

  it('hands out copies: mutating a status does not change the record', async () => {
    const supervisor = makeSupervisor();
    const status = await supervisor.spawn({ instruction: 'echo original' });
    status.state = 'failed';
    status.output = 'tampered';
    expect(supervisor.status(status.handle)).toMatchObject({ state: 'succeeded', output: 'original' });
  });

  it('runs many spawns concurrently with distinct handles and run ids', async () => {
    const supervisor = makeSupervisor();
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => supervisor.spawn({ instruction: `echo run ${i}` })),
    );
    expect(statuses.map((status) => status.output)).toEqual(Array.from({ length: 8 }, (_, i) => `run ${i}`));
    expect(new Set(statuses.map((status) => status.handle)).size).toBe(8);
    expect(new Set(statuses.map((status) => status.runId)).size).toBe(8);
    expect(supervisor.snapshot()).toMatchObject({
      running: 0,
      tracked: 8,
      totals: { spawned: 8, succeeded: 8 },
    });
  });

  it('reports the end of each run once, with the totals already counting it', async () => {
    const supervisor = makeSupervisor();
    const ends: { handle: string; state: string; totals: Record<string, number> }[] = [];
    supervisor.on('status', (status) => {
      if (status.terminal)
        ends.push({
          handle: status.handle,
          state: status.state,
          totals: { ...supervisor.snapshot().totals },
        });
    });
    const ok = await supervisor.spawn({ instruction: 'echo one' });
    const plain = await supervisor.spawn({ agent: 'upper', instruction: 'two' });
    const hang = await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    await supervisor.cancel(hang.handle, 'test');
    expect(ends.map((end) => [end.handle, end.state])).toEqual([
      [ok.handle, 'succeeded'],
      [plain.handle, 'succeeded'],
      [hang.handle, 'cancelled'],
    ]);
    expect(ends.map((end) => end.totals)).toEqual([
      expect.objectContaining({ succeeded: 1, cancelled: 0, turns: 1 }),
      expect.objectContaining({ succeeded: 2, cancelled: 0, turns: 2 }),
      expect.objectContaining({ succeeded: 2, cancelled: 1, turns: 2 }),
    ]);
  });
});
