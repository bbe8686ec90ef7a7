/** Warm sessions and cancellation against real children, including whole-tree kills. */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  disposeAll,
  makeSupervisor,
  processGone,
  sh,
  statusWhen,
  testProfiles,
} from './test-support/fixtures.js';

afterEach(disposeAll);

/** vi.waitFor's bound where no event says it happened (a pid file written, a process reaped). */
const WAIT = { timeout: 10_000, interval: 20 };

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(LocalError);
    return (error as LocalError).code;
  }
  throw new Error('expected a refusal');
}

describe('warm sessions', () => {
  it('answers the first turn, then further turns, and remembers the session', async () => {
    const supervisor = makeSupervisor();
    const turns: number[] = [];
    supervisor.on('turn', (_handle, turn) => turns.push(turn));
    const session = await supervisor.spawn({ instruction: 'echo first', warm: true });
    expect(session).toMatchObject({
      state: 'ready',
      terminal: false,
      warm: true,
      busy: false,
      turns: 1,
      output: 'first',
    });
    const second = await supervisor.send(session.handle, 'uppercase second');
    expect(second).toEqual({
      handle: session.handle,
      turn: 2,
      reply: { text: 'SECOND', turn: 2 },
      isError: false,
      output: 'SECOND',
    });
    const progress: unknown[] = [];
    const slept = await supervisor.send(session.handle, 'sleep 20', undefined, {
      onEvent: (event) => progress.push(event.progress),
    });
    expect(slept.output).toBe('slept 20 ms');
    expect(progress).toEqual([1, 2, 3, 4]);
    const history = await supervisor.send(session.handle, 'history');
    expect(history.output).toBe('echo first\nuppercase second\nsleep 20\nhistory');
    expect(turns).toEqual([1, 2, 3, 4]);
    expect(supervisor.status(session.handle)).toMatchObject({ state: 'ready', turns: 4 });
    expect(supervisor.snapshot()).toMatchObject({ warm: 1, running: 0 });
  });

  it('keeps the session after an agent error turn', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    const failed = await supervisor.send(session.handle, 'fail not today');
    expect(failed).toMatchObject({ isError: true, output: 'not today', turn: 2 });
    expect(supervisor.status(session.handle)).toMatchObject({
      state: 'ready',
      error: { code: 'agent_error' },
    });
    const ok = await supervisor.send(session.handle, 'echo again');
    expect(ok.output).toBe('again');
    expect(supervisor.status(session.handle).error).toBeUndefined();
  });

  it('refuses a turn while busy, on a one-shot handle, on an unknown handle and after the end', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    const slow = supervisor.send(session.handle, 'sleep 200');
    expect(supervisor.status(session.handle)).toMatchObject({ state: 'running', busy: true });
    expect(await refusal(supervisor.send(session.handle, 'echo again'))).toBe('busy');
    expect(await refusal(supervisor.closeSession(session.handle))).toBe('busy');
    expect((await slow).output).toBe('slept 200 ms');
    const oneShot = await supervisor.spawn({ instruction: 'echo once' });
    expect(await refusal(supervisor.send(oneShot.handle, 'echo'))).toBe('not_warm');
    expect(await refusal(supervisor.send('sa_doesnotexist', 'echo'))).toBe('unknown_handle');
    expect(await refusal(supervisor.send(session.handle, ''))).toBe('invalid_request');
    const closed = await supervisor.closeSession(session.handle);
    expect(closed).toMatchObject({
      state: 'succeeded',
      terminal: true,
      reason: 'closed by request',
      turns: 2,
    });
    expect(await refusal(supervisor.send(session.handle, 'echo late'))).toBe('session_closed');
  });

  it('refuses warm sessions for plain agents', async () => {
    const code = await refusal(makeSupervisor().spawn({ agent: 'cat', instruction: 'x', warm: true }));
    expect(code).toBe('invalid_request');
  });

  it('fails the session and the pending turn when the child crashes mid-turn', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    const error = await supervisor.send(session.handle, 'crash 9').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect((error as LocalError).code).toBe('session_closed');
    expect((error as LocalError).message).toContain('code 9');
    expect(supervisor.status(session.handle)).toMatchObject({
      state: 'failed',
      error: { code: 'crashed', exitCode: 9 },
    });
  });

  it('times out a hanging turn and kills the session', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    expect(await refusal(supervisor.send(session.handle, 'hang', undefined, { timeoutMs: 0 }))).toBe(
      'invalid_request',
    );
    const error = await supervisor
      .send(session.handle, 'hang', undefined, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect((error as LocalError).code).toBe('session_closed');
    expect((error as LocalError).message).toContain('timed out after 200 ms');
    expect(supervisor.status(session.handle)).toMatchObject({
      state: 'timed_out',
      error: { code: 'timeout' },
    });
  });

  it('refuses a turn whose reply is too large with output_too_large', async () => {
    const supervisor = makeSupervisor({ limits: { maxOutputBytes: 2000 } });
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    expect(await refusal(supervisor.send(session.handle, 'big 10000'))).toBe('output_too_large');
    expect(supervisor.status(session.handle)).toMatchObject({
      state: 'failed',
      error: { code: 'output_too_large' },
    });
  });

  it('rejects an aborted turn, asks the agent to cancel, and keeps the session', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    const controller = new AbortController();
    const pending = supervisor.send(session.handle, 'sleep 400', controller.signal);
    controller.abort();
    expect(await refusal(pending)).toBe('aborted');
    await statusWhen(supervisor, session.handle, (s) => s.state === 'ready');
    expect(supervisor.status(session.handle)).toMatchObject({
      turns: 2,
      error: { code: 'agent_error', message: 'turn cancelled by the supervisor' },
    });
  });

  it('closes an idle session after warmIdleTimeoutMs', async () => {
    const supervisor = makeSupervisor({ limits: { warmIdleTimeoutMs: 100 } });
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    await statusWhen(supervisor, session.handle, (s) => s.terminal);
    expect(supervisor.status(session.handle)).toMatchObject({ state: 'succeeded', reason: 'idle timeout' });
    expect(supervisor.snapshot().warm).toBe(0);
  });
});

describe('cancel', () => {
  it('kills a plain command and its grandchild', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-sup-'));
    const pidFile = join(dir, 'grandchild.pid');
    const supervisor = makeSupervisor({
      profiles: [...testProfiles(), sh('tree', `sleep 30 & echo $! > ${pidFile}; wait`)],
    });
    const run = await supervisor.spawn({ agent: 'tree', instruction: 'x', async: true });
    await vi.waitFor(
      () =>
        expect(existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '', 'the grandchild pid').toMatch(/\n$/),
      WAIT,
    );
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(processGone(grandchild)).toBe(false);
    const cancelled = await supervisor.cancel(run.handle, 'operator said so');
    expect(cancelled).toMatchObject({
      state: 'cancelled',
      reason: 'operator said so',
      error: { code: 'cancelled' },
    });
    await vi.waitFor(() => expect(processGone(grandchild), 'the grandchild to die').toBe(true), WAIT);
    expect(processGone(run.pid ?? 0)).toBe(true);
  });

  it('kills a protocol agent and the process it started', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'grandchild', warm: true });
    const grandchild = Number(session.output);
    expect(processGone(grandchild)).toBe(false);
    await supervisor.cancel(session.handle);
    await vi.waitFor(() => expect(processGone(grandchild), 'the grandchild to die').toBe(true), WAIT);
    expect(supervisor.status(session.handle).state).toBe('cancelled');
  });

  it('cancels a sync spawn whose caller aborts', async () => {
    const supervisor = makeSupervisor();
    const controller = new AbortController();
    supervisor.on('status', (status) => {
      if (status.state === 'running') controller.abort();
    });
    const status = await supervisor.spawn({ instruction: 'hang' }, controller.signal);
    expect(status).toMatchObject({ state: 'cancelled', reason: 'aborted by the caller' });
  });

  it('is idempotent on finished runs and cancels everything with cancelAll', async () => {
    const supervisor = makeSupervisor();
    const done = await supervisor.spawn({ instruction: 'echo done' });
    expect(await supervisor.cancel(done.handle)).toEqual(done);
    const a = await supervisor.spawn({ instruction: 'hang', async: true });
    const b = await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    const c = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    await supervisor.cancelAll('shutting down');
    for (const handle of [a.handle, b.handle, c.handle]) {
      expect(supervisor.status(handle)).toMatchObject({ state: 'cancelled', reason: 'shutting down' });
    }
    expect(supervisor.snapshot()).toMatchObject({
      running: 0,
      warm: 0,
      totals: { cancelled: 3, succeeded: 1 },
    });
  });
});
