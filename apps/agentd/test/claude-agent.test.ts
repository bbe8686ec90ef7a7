/**
 * `claude` mode against the real Claude Code CLI, offline: a scripted Messages API on loopback
 * plays the model. Permission prompts go through the policy, an operator's approve, a caller's
 * answerer; the conversation continues with its context; usage and cost reach the status;
 * budgets, cancel, idle timeout and a CLI that dies mid-turn end the run as they should, and
 * nothing is left pending. Without the binary: one SKIPPED line (a failure under CI=true).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClaudeRun } from '../src/supervisor/claude-run.js';
import { checkConfig } from '../src/supervisor/config-check.js';
import { PolicyBroker } from '../src/supervisor/permission-broker.js';
import type { RunEvent } from '../src/supervisor/run-event.js';
import type { Supervisor } from '../src/supervisor/supervisor.js';
import {
  disposeAll,
  makeSupervisor,
  processGone,
  statusWhen,
  TEST_LIMITS,
} from '../src/supervisor/test-support/fixtures.js';
import type { AgentEvent, AgentProfile, SubagentStatus } from '../src/supervisor/types.js';
import { CLAUDE_MISSING_IN_CI, claudeProfile, claudeTests } from './support/claude-cli.js';
import { ScriptedModel } from './support/scripted-model.js';

const cli = claudeTests('apps/agentd claude mode tests');
const WAIT = { timeout: 15_000, interval: 20 };

let model: ScriptedModel | undefined;
/** Each test's scratch directory (its working directory and Claude Code's HOME). */
const scratch: string[] = [];
let current: Supervisor | undefined;
afterEach(async () => {
  // Nothing pending outlives a turn or a run.
  expect(current?.snapshot().pendingPermissions ?? 0).toBe(0);
  current = undefined;
  await disposeAll();
  await model?.close();
  model = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  supervisor: Supervisor;
  model: ScriptedModel;
  dir: string;
  file: string;
  profile: AgentProfile;
}

async function setup(extra: Partial<AgentProfile> = {}, killGraceMs = 300): Promise<Setup> {
  model = await ScriptedModel.start();
  const root = mkdtempSync(join(tmpdir(), 'agentd-claude-'));
  scratch.push(root);
  const dir = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  const profile = claudeProfile('claude', model.url, dir, home, extra);
  const supervisor = makeSupervisor({
    profiles: [profile],
    defaultAgent: 'claude',
    limits: { defaultTimeoutMs: 60_000, killGraceMs },
  });
  current = supervisor;
  return { supervisor, model, dir, file: join(dir, 'hello.txt'), profile };
}

/** The model asks to write `file`, then answers `after` once the tool result is back. */
function scriptWrite(m: ScriptedModel, file: string, after: string): void {
  m.enqueue(
    {
      text: 'I will write the file.',
      toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello from claude\n' } }],
      usage: { input_tokens: 100, output_tokens: 20 },
    },
    { text: after, usage: { input_tokens: 150, output_tokens: 10 } },
  );
}

/** Spawns without waiting; resolves the handle once admitted. */
function spawnLater(
  supervisor: Supervisor,
  request: Parameters<Supervisor['spawn']>[0],
  events: AgentEvent[] = [],
  onPermission?: (request: unknown) => Promise<string | undefined>,
): { handle: Promise<string>; spawned: Promise<SubagentStatus> } {
  let admitted: (handle: string) => void = () => {};
  const handle = new Promise<string>((resolve) => {
    admitted = resolve;
  });
  const spawned = supervisor.spawn(request, undefined, {
    onStart: (status) => admitted(status.handle),
    onEvent: (event) => events.push(event),
    ...(onPermission === undefined ? {} : { onPermission }),
  });
  return { handle, spawned };
}

/** The tool_result blocks the model saw in its latest request. */
function lastToolResults(m: ScriptedModel): Array<Record<string, unknown>> {
  const messages = m.mainRequests.at(-1)?.body.messages ?? [];
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<Record<string, unknown>>).filter((b) => b.type === 'tool_result')
      : [],
  );
}

function refusalCode(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(LocalError);
    return (error as LocalError).code;
  }
  throw new Error('expected a refusal');
}

describe.skipIf(!cli.run)('claude mode (real Claude Code CLI, scripted model)', () => {
  it('writes under an allowing policy, maps the stream onto run events, and continues the conversation', async () => {
    const { supervisor, model: m, file } = await setup({ permissions: { allow: ['Write'] } });
    m.enqueue({
      thinking: 'The user wants a file.',
      text: 'I will write the file.',
      chunkChars: 5,
      toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello from claude\n' } }],
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    m.enqueue({ text: 'Wrote hello.txt.', usage: { input_tokens: 150, output_tokens: 10 } });
    const events: AgentEvent[] = [];
    const first = await supervisor.spawn({ instruction: 'write hello.txt' }, undefined, {
      onEvent: (event) => events.push(event),
    });
    expect(first).toMatchObject({
      state: 'ready',
      mode: 'claude',
      warm: true,
      turns: 1,
      output: 'Wrote hello.txt.',
    });
    expect(readFileSync(file, 'utf8')).toBe('hello from claude\n');
    expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.usage).toMatchObject({ inputTokens: 250, outputTokens: 30 });
    expect(first.usage?.costUsd).toBeGreaterThan(0);
    expect(first.pendingPermissions).toBeUndefined();

    const runEvents = events as RunEvent[];
    const calls = runEvents.filter((e) => e.type === 'tool_call').map((e) => e.toolCall);
    expect(calls[0]).toMatchObject({ name: 'Write', kind: 'edit', status: 'pending', locations: [file] });
    expect(calls.at(-1)).toMatchObject({ name: 'Write', status: 'completed' });
    expect(calls.at(-1)?.output).toMatch(/hello\.txt/);
    // Text streams as chunks (partial messages), never repeated whole.
    const said = runEvents.filter((e) => e.type === 'message').map((e) => e.text);
    expect(said.join('')).toBe('I will write the file.Wrote hello.txt.');
    expect(said.slice(0, 5)).toEqual(['I wil', 'l wri', 'te th', 'e fil', 'e.']);
    expect(runEvents.filter((e) => e.type === 'thought').map((e) => e.text)).toEqual([
      'The user wants a file.',
    ]);
    expect(runEvents).toContainEqual({ type: 'diff', path: file, newText: 'hello from claude\n' });
    const decision = runEvents.find((e) => e.type === 'permission_decision');
    expect(decision).toMatchObject({ decision: { outcome: 'selected', optionId: 'allow', by: 'policy' } });
    expect(runEvents.find((e) => e.type === 'turn_end')).toMatchObject({ turn: 1, stopReason: 'end_turn' });

    m.enqueue({ text: 'You asked me to write hello.txt.', usage: { input_tokens: 300, output_tokens: 12 } });
    const second = await supervisor.send(first.handle, 'what did I ask you?');
    expect(second).toMatchObject({ turn: 2, isError: false, output: 'You asked me to write hello.txt.' });
    // The same conversation: the model saw the first turn, its tool call and the tool's result.
    const sent = JSON.stringify(m.mainRequests.at(-1)?.body.messages);
    expect(sent).toContain('write hello.txt');
    expect(sent).toContain('what did I ask you?');
    expect(sent).toContain('tool_result');
    const status = supervisor.status(first.handle);
    expect(status.sessionId).toBe(first.sessionId);
    expect(status.usage?.inputTokens).toBe(550);
    expect(status.usage?.costUsd).toBeGreaterThan(first.usage?.costUsd ?? 0);
    expect((status.result as { turns: unknown[] }).turns).toHaveLength(2);

    const closed = await supervisor.closeSession(first.handle);
    expect(closed).toMatchObject({ state: 'succeeded', reason: 'closed by request', turns: 2 });
    expect(closed.usage?.inputTokens).toBe(550);
  });

  it('asks, and an operator approves: the file is written; a second answer is already decided', async () => {
    const { supervisor, model: m, file } = await setup();
    scriptWrite(m, file, 'done');
    const { handle, spawned } = spawnLater(supervisor, { instruction: 'write it' });
    const h = await handle;
    const asking = await statusWhen(supervisor, h, (s) => (s.pendingPermissions?.length ?? 0) > 0);
    const pending = asking.pendingPermissions?.[0];
    expect(pending).toMatchObject({ toolCall: { name: 'Write', kind: 'edit' } });
    expect(pending?.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(existsSync(file)).toBe(false);
    expect(supervisor.snapshot().pendingPermissions).toBe(1);
    const requestId = pending?.requestId ?? '';
    expect(supervisor.approve(h, requestId, 'allow')).toMatchObject({ by: 'operator', kind: 'allow_once' });
    expect(refusalCode(() => supervisor.approve(h, requestId, 'deny'))).toBe('already_decided');
    const ready = await spawned;
    expect(ready).toMatchObject({ state: 'ready', output: 'done' });
    expect(ready.pendingPermissions).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe('hello from claude\n');
  });

  it('asks, and a rejection keeps the file unwritten; the model is told it was denied', async () => {
    const { supervisor, model: m, file } = await setup();
    scriptWrite(m, file, 'I was not allowed.');
    const { handle, spawned } = spawnLater(supervisor, { instruction: 'write it' });
    const h = await handle;
    const asking = await statusWhen(supervisor, h, (s) => (s.pendingPermissions?.length ?? 0) > 0);
    supervisor.approve(h, asking.pendingPermissions?.[0]?.requestId ?? '', { allow: false });
    expect(await spawned).toMatchObject({ state: 'ready', output: 'I was not allowed.' });
    expect(existsSync(file)).toBe(false);
    const [result] = lastToolResults(m);
    expect(result).toMatchObject({ is_error: true });
    expect(JSON.stringify(result)).toContain('denied by an operator');
  });

  it("lets the spawning caller's answerer decide", async () => {
    const {
      supervisor,
      model: m,
      file,
      dir,
    } = await setup({ permissions: { default: 'ask', deny: ['Bash'] } });
    scriptWrite(m, file, 'ok');
    const asked: unknown[] = [];
    const { spawned } = spawnLater(supervisor, { instruction: 'write it' }, [], async (request) => {
      asked.push(request);
      return 'allow';
    });
    const ready = await spawned;
    expect(ready).toMatchObject({ state: 'ready' });
    expect(asked).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe('hello from claude\n');
    // The spawn's answerer is gone with the spawn: a later turn's request waits for another answer.
    const again = join(dir, 'again.txt');
    scriptWrite(m, again, 'asked again');
    const events: AgentEvent[] = [];
    const turn = supervisor.send(ready.handle, 'write again', undefined, { onEvent: (e) => events.push(e) });
    const asking = await statusWhen(supervisor, ready.handle, (s) => (s.pendingPermissions?.length ?? 0) > 0);
    expect(asked).toHaveLength(1);
    supervisor.approve(ready.handle, asking.pendingPermissions?.[0]?.requestId ?? '', { allow: true });
    expect(await turn).toMatchObject({ turn: 2, output: 'asked again' });
    expect(readFileSync(again, 'utf8')).toBe('hello from claude\n');
    expect((events as RunEvent[]).find((e) => e.type === 'permission_decision')).toMatchObject({
      decision: { by: 'operator' },
    });
  });

  it('denies by timeout when nobody answers, and a late approve is already decided', async () => {
    const { supervisor, model: m, file } = await setup({ permissions: { timeoutMs: 100 } });
    scriptWrite(m, file, 'nobody answered');
    const events: AgentEvent[] = [];
    const { handle, spawned } = spawnLater(supervisor, { instruction: 'write it' }, events);
    const h = await handle;
    expect(await spawned).toMatchObject({ state: 'ready', output: 'nobody answered' });
    expect(existsSync(file)).toBe(false);
    const request = (events as RunEvent[]).find((e) => e.type === 'permission_request');
    expect((events as RunEvent[]).find((e) => e.type === 'permission_decision')).toMatchObject({
      decision: { by: 'timeout', optionId: 'deny' },
    });
    const requestId = request?.type === 'permission_request' ? request.request.requestId : '';
    expect(refusalCode(() => supervisor.approve(h, requestId, 'allow'))).toBe('already_decided');
  });

  it('stops a run over its budget: failed, budget_exceeded, with the usage at that moment', async () => {
    const { supervisor, model: m } = await setup({ budget: { maxTokens: 1_000_000 } });
    m.enqueue({ text: 'expensive', usage: { input_tokens: 5000, output_tokens: 2000 } });
    const status = await supervisor.spawn({ instruction: 'think hard', budget: { maxCostUsd: 0.0001 } });
    expect(status.state).toBe('failed');
    expect(status.error).toMatchObject({
      code: 'budget_exceeded',
      usage: { inputTokens: 5000, outputTokens: 2000 },
    });
    expect(status.error?.usage?.costUsd).toBeGreaterThan(0.0001);
    expect(status.error?.message).toMatch(/maxCostUsd/);
    expect(status.usage?.costUsd).toBe(status.error?.usage?.costUsd);
  });

  it('stops a turn mid-way once its tokens pass maxTokens', async () => {
    const {
      supervisor,
      model: m,
      file,
    } = await setup({ budget: { maxTokens: 50 }, permissions: { allow: ['*'] } });
    scriptWrite(m, file, 'never reached');
    const status = await supervisor.spawn({ instruction: 'write it' });
    expect(status).toMatchObject({ state: 'failed', error: { code: 'budget_exceeded' } });
    expect(status.error?.message).toMatch(/tokens is over maxTokens 50/);
    expect(m.pending).toBeGreaterThan(0);
  });

  it('resumes a session in a new process with its id (--resume)', async () => {
    const { supervisor, model: m, profile: claude } = await setup();
    m.enqueue({ text: 'Noted: the password is swordfish.' });
    const first = await supervisor.spawn({ instruction: 'remember: the password is swordfish' });
    await supervisor.closeSession(first.handle);
    const sessionId = first.sessionId ?? '';
    m.enqueue({ text: 'It is swordfish.' });
    // The same HOME and config dir: Claude Code keeps its sessions there.
    const profile = { ...claude, name: 'resumed' };
    const run = new ClaudeRun(
      {
        handle: 'h-resume',
        runId: 'r-resume',
        profile,
        warm: true,
        timeoutMs: 60_000,
        startedBy: { trust: 'management', principal: 'test', share: 'test' },
      },
      {
        limits: () =>
          checkConfig({ profiles: [profile], defaultAgent: 'resumed', limits: TEST_LIMITS }).limits,
        log: () => {},
        listenerFailed: () => {},
        permissions: new PolicyBroker(),
      },
      { resumeSessionId: sessionId },
    );
    run.start('what is the password?');
    await run.until((r) => r.state !== 'starting' && r.state !== 'running');
    expect(run.status()).toMatchObject({ state: 'ready', sessionId, output: 'It is swordfish.' });
    const sent = JSON.stringify(m.mainRequests.at(-1)?.body.messages);
    expect(sent).toContain('remember: the password is swordfish');
    expect(sent).toContain('what is the password?');
    await run.close('done');
    expect(run.state).toBe('succeeded');
  });

  it('refuses a malformed spawn budget', async () => {
    const { supervisor } = await setup();
    await expect(supervisor.spawn({ instruction: 'x', budget: { maxCostUsd: -1 } })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'budget.maxCostUsd must be a positive number of US dollars',
    });
  });

  it('cancels a turn gracefully (interrupt, then EOF): no kill, no pending decision left', async () => {
    const { supervisor, model: m, file } = await setup({}, 10_000);
    scriptWrite(m, file, 'never');
    const { handle, spawned } = spawnLater(supervisor, { instruction: 'write it' });
    const h = await handle;
    await statusWhen(supervisor, h, (s) => (s.pendingPermissions?.length ?? 0) > 0);
    const requestId = supervisor.status(h).pendingPermissions?.[0]?.requestId ?? '';
    const cancelled = await supervisor.cancel(h, 'changed my mind');
    expect(cancelled).toMatchObject({
      state: 'cancelled',
      reason: 'changed my mind',
      error: { code: 'cancelled' },
    });
    expect(cancelled.error?.signal ?? null).toBeNull();
    expect(cancelled.pendingPermissions).toBeUndefined();
    expect(refusalCode(() => supervisor.approve(h, requestId, 'allow'))).toBe('already_decided');
    expect(await spawned).toMatchObject({ state: 'cancelled' });
    expect(existsSync(file)).toBe(false);
  });

  it('fails clearly when the CLI dies mid-turn', async () => {
    const { supervisor, model: m } = await setup();
    let release: () => void = () => {};
    m.enqueue({
      text: 'too late',
      hold: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    const { handle, spawned } = spawnLater(supervisor, { instruction: 'take your time' });
    const h = await handle;
    await m.mainRequestCount(1);
    const pid = supervisor.status(h).pid ?? 0;
    process.kill(pid, 'SIGKILL');
    const failed = await spawned;
    release();
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'crashed', signal: 'SIGKILL' } });
    expect(failed.error?.message).toBe('claude was killed by SIGKILL before answering');
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
  });

  it('ends an idle conversation after its idle timeout', async () => {
    const { supervisor, model: m } = await setup({ idleTimeoutMs: 100 });
    m.enqueue({ text: 'hi' });
    const ready = await supervisor.spawn({ instruction: 'hello' });
    expect(ready.state).toBe('ready');
    const ended = await statusWhen(supervisor, ready.handle, (s) => s.terminal);
    expect(ended).toMatchObject({ state: 'succeeded', reason: 'idle timeout', turns: 1 });
  });

  it('runs one turn and ends when the spawn asks for no conversation', async () => {
    const { supervisor, model: m } = await setup();
    m.enqueue({ text: 'just once' });
    const status = await supervisor.spawn({ instruction: 'once', warm: false });
    expect(status).toMatchObject({ state: 'succeeded', warm: false, turns: 1, output: 'just once' });
    expect(refusalCode(() => supervisor.status('nope'))).toBe('unknown_handle');
  });
});

describe.runIf(cli.failInCi)('claude mode under CI', () => {
  it('needs the Claude Code binary under CI', () => {
    expect.fail(CLAUDE_MISSING_IN_CI);
  });
});
