/** `acp` mode against a real ACP agent process (test-support/acp-test-agent.mjs, the SDK's agent side). */
import { existsSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AcpRun } from './acp-run.js';
import { checkConfig } from './config-check.js';
import type { RunContext } from './run.js';
import type { PermissionBroker, RunEvent } from './run-event.js';
import type { Supervisor } from './supervisor.js';
import { acpTestProfile, type ScriptedAnswer, scriptedBroker } from './test-support/acp-test-agent.js';
import { disposeAll, makeSupervisor, processGone, TEST_LIMITS } from './test-support/fixtures.js';
import type { AgentEvent, AgentProfile, RunStarter } from './types.js';

afterEach(disposeAll);

const WAIT = { timeout: 10_000, interval: 20 };
const TEST_STARTER: RunStarter = { trust: 'management', principal: 'test', share: 'test' };

function fixture(
  profile: Partial<AgentProfile> = {},
  flags: string[] = [],
  answer: ScriptedAnswer = 'allow',
) {
  const broker = scriptedBroker(answer);
  const supervisor = makeSupervisor({
    profiles: [acpTestProfile('acp', profile, flags)],
    defaultAgent: 'acp',
    permissions: broker,
  });
  const events: AgentEvent[] = [];
  supervisor.on('event', (_handle, event) => events.push(event));
  return { supervisor, broker, events };
}

const ofType = <T extends RunEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event) => event.type === type) as unknown as Extract<RunEvent, { type: T }>[];

const stderrSaid = (events: AgentEvent[], text: string): boolean =>
  events.some(
    (event) => event.stream === 'stderr' && typeof event.text === 'string' && event.text.includes(text),
  );

/** What the agent said (its message chunks), not its stderr lines (messages marked with a stream). */
const said = (events: AgentEvent[]): string[] =>
  ofType(events, 'message')
    .filter((event) => event.stream === undefined)
    .map((event) => event.text);

async function workspace(): Promise<string> {
  return realpathSync(await mkdtemp(join(tmpdir(), 'agentd-acp-')));
}

/** The run's pid, and proof the fleet holds nothing of it once it ended. */
async function expectNothingLeft(supervisor: Supervisor, pid: number | undefined): Promise<void> {
  expect(pid).toBeTypeOf('number');
  await vi.waitFor(() => expect(processGone(pid as number)).toBe(true), WAIT);
  expect(supervisor.snapshot()).toMatchObject({ running: 0, warm: 0 });
}

describe('acp mode', () => {
  it('maps session updates onto run events and answers the prompt', async () => {
    const cwd = await workspace();
    const { supervisor, events } = fixture({ cwd });
    const status = await supervisor.spawn({ instruction: 'echo hello world', warm: false });
    expect(status).toMatchObject({ state: 'succeeded', mode: 'acp', output: 'hello world ', turns: 1 });
    expect(status.result).toMatchObject({ text: 'hello world ', stopReason: 'end_turn' });
    expect(ofType(events, 'thought')).toEqual([{ type: 'thought', text: 'thinking about hello world' }]);
    expect(ofType(events, 'plan')).toEqual([
      { type: 'plan', entries: [{ content: 'answer', status: 'in_progress', priority: 'high' }] },
    ]);
    expect(said(events)).toEqual(['hello ', 'world ']);
    expect(ofType(events, 'turn_end')).toEqual([
      { type: 'turn_end', turn: 1, stopReason: 'end_turn', text: 'hello world ' },
    ]);
    // The session lives in the run's cwd, with no MCP servers; nothing the profile did not allow is offered.
    expect(stderrSaid(events, `session/new cwd=${cwd} mcpServers=0`)).toBe(true);
    expect(stderrSaid(events, '"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false')).toBe(
      true,
    );
  });

  it('accepts an update about the new session sent before session/new is answered', async () => {
    const { supervisor, events } = fixture({}, ['--early-update']);
    const status = await supervisor.spawn({ instruction: 'echo hi', warm: false });
    expect(status.state).toBe('succeeded');
    expect(ofType(events, 'plan')[0]?.entries).toEqual([
      { content: 'early', status: 'pending', priority: 'low' },
    ]);
  });

  it('puts a permission request to the broker: allow writes the file, reject does not', async () => {
    for (const answer of ['allow', 'reject'] as const) {
      const cwd = await workspace();
      const { supervisor, broker, events } = fixture({ cwd, allowFileSystem: true }, [], answer);
      const status = await supervisor.spawn({
        instruction: `tool ${join(cwd, 'out.txt')} new content`,
        warm: false,
      });
      expect(status.state).toBe('succeeded');
      expect(broker.requests).toHaveLength(1);
      expect(broker.requests[0]?.options.map((option) => option.kind)).toEqual(['allow_once', 'reject_once']);
      expect(broker.requests[0]?.toolCall).toMatchObject({
        id: 'call-1',
        kind: 'edit',
        title: expect.stringContaining('Write'),
      });
      const decisions = ofType(events, 'permission_decision');
      expect(decisions).toHaveLength(1);
      expect(decisions[0]?.decision).toMatchObject({ outcome: 'selected', optionId: answer });
      const calls = ofType(events, 'tool_call').map((event) => event.toolCall);
      expect(calls[0]).toMatchObject({
        id: 'call-1',
        status: 'pending',
        locations: [join(cwd, 'out.txt')],
        input: expect.stringContaining('new content'),
      });
      expect(calls.at(-1)).toMatchObject({
        id: 'call-1',
        title: `Write ${join(cwd, 'out.txt')}`,
        status: answer === 'allow' ? 'completed' : 'failed',
        output: answer === 'allow' ? 'written' : 'rejected by the user',
      });
      expect(ofType(events, 'diff')).toEqual([
        { type: 'diff', path: join(cwd, 'out.txt'), newText: 'new content' },
      ]);
      expect(existsSync(join(cwd, 'out.txt'))).toBe(answer === 'allow');
      if (answer === 'allow') expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('new content');
    }
  });

  it('serves the file system inside the cwd only, and not at all unless allowed', async () => {
    const cwd = await workspace();
    const outside = await workspace();
    writeFileSync(join(cwd, 'in.txt'), 'inside');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(cwd, 'escape'));
    const { supervisor } = fixture({ cwd, allowFileSystem: true });
    const session = await supervisor.spawn({ instruction: 'read in.txt', warm: true });
    expect(session.output).toBe('content: inside');
    const tries = [
      `read ${join(outside, 'secret.txt')}`,
      'read ../secret.txt',
      'read escape/secret.txt',
      'write escape/new.txt x',
    ];
    for (const message of tries) {
      const reply = await supervisor.send(session.handle, message);
      expect(reply.output).toMatch(/^error -32602: .*agentd refused/);
    }
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    const refused = fixture({ cwd });
    const status = await refused.supervisor.spawn({ instruction: 'write a.txt x', warm: false });
    expect(status.output).toMatch(/^error -32001: .*agentd does not allow file-system access/);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
  });

  it('runs terminals in the cwd, and kills them when the run ends', async () => {
    const cwd = await workspace();
    const { supervisor } = fixture({ cwd, allowTerminal: true });
    const session = await supervisor.spawn({ instruction: 'term echo hi; pwd', warm: true });
    expect(session.output).toBe(`exit 0: hi\n${cwd}`);
    expect((await supervisor.send(session.handle, 'term-big')).output).toBe('1000 true xxxxxxxxxEND');
    expect((await supervisor.send(session.handle, 'term-argv')).output).toBe('10 false a b|$HOME|');
    const reply = await supervisor.send(session.handle, 'term-bg');
    const pid = Number(/^pid (\d+)$/.exec(reply.output)?.[1]);
    expect(processGone(pid)).toBe(false);
    await supervisor.closeSession(session.handle);
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
    const refused = fixture({ cwd });
    const status = await refused.supervisor.spawn({ instruction: 'term echo hi', warm: false });
    expect(status.output).toMatch(/^error -32001: .*agentd does not allow terminals/);
  });

  it('continues the same session on send, and reports usage', async () => {
    const { supervisor, events } = fixture();
    const session = await supervisor.spawn({ instruction: 'echo one', warm: true });
    const sessionId = (session.result as { sessionId: string }).sessionId;
    expect(sessionId).toMatch(/^sess-/);
    const reply = await supervisor.send(session.handle, 'history');
    expect(JSON.parse(reply.output)).toEqual({ sessionId, prompts: ['echo one', 'history'] });
    const usage = await supervisor.send(session.handle, 'usage');
    expect(usage.reply).toMatchObject({
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0, costUsd: 0.25 },
    });
    expect(ofType(events, 'usage').at(-1)?.usage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 2,
      cacheWriteTokens: 0,
      costUsd: 0.25,
    });
    expect(ofType(events, 'turn_end').map((event) => event.turn)).toEqual([1, 2, 3]);
    const closed = await supervisor.closeSession(session.handle);
    expect(closed).toMatchObject({ state: 'succeeded', turns: 3 });
    await expectNothingLeft(supervisor, session.pid);
  });

  it('cancels gracefully: session/cancel first, and a later permission request is answered cancelled', async () => {
    for (const instruction of ['wait', 'perm-after-cancel']) {
      const { supervisor, broker, events } = fixture({}, [], 'allow');
      const started = await supervisor.spawn({ instruction, async: true, warm: false });
      await vi.waitFor(() => expect(said(events)).toContain('waiting'), WAIT);
      const status = await supervisor.cancel(started.handle, 'test');
      expect(status).toMatchObject({ state: 'cancelled', error: { code: 'cancelled' } });
      expect(stderrSaid(events, 'observed session/cancel')).toBe(true);
      if (instruction === 'perm-after-cancel') {
        expect(stderrSaid(events, 'permission outcome: cancelled')).toBe(true);
        expect(broker.requests).toEqual([]);
        expect(ofType(events, 'permission_decision')[0]?.decision).toEqual({
          outcome: 'cancelled',
          by: 'cancelled',
        });
      }
      await expectNothingLeft(supervisor, status.pid ?? started.pid);
    }
  });

  it('a caller that stops waiting for a turn sends session/cancel; the session stays open', async () => {
    const { supervisor, events } = fixture();
    const session = await supervisor.spawn({ instruction: 'echo one', warm: true });
    const abort = new AbortController();
    const turn = supervisor.send(session.handle, 'wait', abort.signal);
    await vi.waitFor(() => expect(said(events)).toContain('waiting'), WAIT);
    abort.abort();
    await expect(turn).rejects.toMatchObject({ code: 'aborted' });
    await vi.waitFor(() => expect(supervisor.status(session.handle).state).toBe('ready'), WAIT);
    expect(stderrSaid(events, 'observed session/cancel')).toBe(true);
    expect(ofType(events, 'turn_end').at(-1)).toMatchObject({ turn: 2, stopReason: 'cancelled' });
    expect((await supervisor.send(session.handle, 'echo again')).output).toBe('again ');
  });

  it('times a turn out, and closes an idle conversation', async () => {
    const slow = fixture({ timeoutMs: 2500 });
    const timedOut = await slow.supervisor.spawn({ instruction: 'wait', warm: false });
    expect(timedOut).toMatchObject({ state: 'timed_out', error: { code: 'timeout' } });
    await expectNothingLeft(slow.supervisor, timedOut.pid);
    const idle = makeSupervisor({
      profiles: [acpTestProfile('acp')],
      defaultAgent: 'acp',
      limits: { warmIdleTimeoutMs: 200 },
    });
    const session = await idle.spawn({ instruction: 'echo one', warm: true });
    await vi.waitFor(() => expect(idle.status(session.handle).state).toBe('succeeded'), WAIT);
    expect(idle.status(session.handle).reason).toBe('idle timeout');
    await expectNothingLeft(idle, session.pid);
  });

  it('a pending permission decision is cancelled when the run ends', async () => {
    const cwd = await workspace();
    const { supervisor, broker, events } = fixture({ cwd, allowFileSystem: true }, [], 'hold');
    const started = await supervisor.spawn({ instruction: 'tool out.txt x', async: true, warm: false });
    await vi.waitFor(() => expect(broker.requests).toHaveLength(1), WAIT);
    await supervisor.cancel(started.handle, 'test');
    expect(broker.decisions).toEqual([{ outcome: 'cancelled', by: 'cancelled' }]);
    expect(ofType(events, 'permission_decision')).toHaveLength(1);
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false);
    await expectNothingLeft(supervisor, started.pid);
  });

  it('fails clearly on bad input from the agent, leaving nothing behind', async () => {
    const cases: Array<{ flags?: string[]; instruction: string; code: string; message: RegExp }> = [
      {
        flags: ['--no-init'],
        instruction: 'echo x',
        code: 'protocol_error',
        message: /did not answer initialize within/,
      },
      { flags: ['--garbage-init'], instruction: 'echo x', code: 'protocol_error', message: /not JSON/ },
      { instruction: 'garbage', code: 'protocol_error', message: /not JSON: "this is not json"/ },
      {
        instruction: 'bogus-response',
        code: 'protocol_error',
        message: /response to a request never sent \(id 9999\)/,
      },
      { instruction: 'foreign-update', code: 'protocol_error', message: /unknown session "someone-else"/ },
      { instruction: 'exit', code: 'crashed', message: /exited with code 3/ },
    ];
    for (const { flags = [], instruction, code, message } of cases) {
      const { supervisor } = fixture({ timeoutMs: flags.includes('--no-init') ? 1500 : 10_000 }, flags);
      const status = await supervisor.spawn({ instruction, warm: false });
      expect(status.state, instruction).toBe('failed');
      expect(status.error?.code, instruction).toBe(code);
      expect(status.error?.message, instruction).toMatch(message);
      await expectNothingLeft(supervisor, status.pid);
    }
    const missing = fixture({ cwd: join(tmpdir(), 'agentd-acp-no-such-dir') });
    expect(await missing.supervisor.spawn({ instruction: 'echo x', warm: false })).toMatchObject({
      state: 'failed',
      error: { code: 'spawn_failed' },
    });
    // The fleet keeps serving.
    const { supervisor } = fixture();
    expect((await supervisor.spawn({ instruction: 'echo still here', warm: false })).state).toBe('succeeded');
  });
});

describe('acp sessions continued in a new process', () => {
  function context(permissions: PermissionBroker): RunContext {
    const { limits } = checkConfig({
      profiles: [acpTestProfile('acp')],
      defaultAgent: 'acp',
      limits: TEST_LIMITS,
    });
    return { limits: () => limits, log: () => {}, listenerFailed: () => {}, permissions };
  }

  it.each([['--state'], ['--resume']])('continues a session by id (%s)', async (how) => {
    const state = await workspace();
    const flags = how === '--resume' ? ['--state', state, '--resume'] : ['--state', state];
    const { supervisor } = fixture({}, flags);
    const first = await supervisor.spawn({ instruction: 'echo one', warm: true });
    const sessionId = (first.result as { sessionId: string }).sessionId;
    await supervisor.closeSession(first.handle);
    const profile = acpTestProfile('acp', {}, flags);
    const identity = {
      handle: 'h',
      runId: 'r',
      profile,
      warm: false,
      timeoutMs: 5000,
      startedBy: TEST_STARTER,
    };
    const run = new AcpRun(identity, context(scriptedBroker('reject')), { sessionId });
    const events: AgentEvent[] = [];
    run.on('event', (_run, event) => events.push(event));
    run.start('history');
    await run.done;
    expect(run.status()).toMatchObject({ state: 'succeeded' });
    expect(JSON.parse(run.status().output ?? '')).toEqual({ sessionId, prompts: ['echo one', 'history'] });
    expect(run.sessionId).toBe(sessionId);
    expect(
      stderrSaid(events, how === '--resume' ? `session/resume ${sessionId}` : `session/load ${sessionId}`),
    ).toBe(true);
    // The replayed history is not this turn's answer.
    expect(said(events)).toEqual([run.status().output]);
    await run.childExited();
  });

  it('fails clearly when the agent cannot continue a session', async () => {
    const run = new AcpRun(
      {
        handle: 'h',
        runId: 'r',
        profile: acpTestProfile('acp'),
        warm: false,
        timeoutMs: 5000,
        startedBy: TEST_STARTER,
      },
      context(scriptedBroker('reject')),
      { sessionId: 'sess-unknown' },
    );
    run.start('history');
    await run.done;
    expect(run.status()).toMatchObject({
      state: 'failed',
      error: {
        code: 'protocol_error',
        message: expect.stringContaining('neither session/resume nor session/load'),
      },
    });
    await run.childExited();
  });
});
