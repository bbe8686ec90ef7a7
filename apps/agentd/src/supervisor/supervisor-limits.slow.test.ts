/** Supervisor admission: limits, eviction order, pause/readiness/drain and hot reconfiguration. */
import { LocalError } from '@agentd/rpc-frame';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleAgentProfile } from './example-agent-profile.js';
import {
  disposeAll,
  makeSupervisor,
  sh,
  statusWhen,
  TEST_LIMITS,
  testProfiles,
} from './test-support/fixtures.js';

afterEach(disposeAll);

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<LocalError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(LocalError);
    return error as LocalError;
  }
  throw new Error('expected a refusal');
}

describe('limits', () => {
  it('keeps a reserve for management, a share per restricted principal, and caps restricted timeouts', async () => {
    const supervisor = makeSupervisor({
      limits: {
        maxConcurrentRuns: 3,
        reservedRuns: 1,
        restrictedRunsPerPrincipal: 1,
        restrictedMaxTimeoutMs: 5000,
      },
    });
    const peer = (principal: string) => ({ trust: 'restricted', principal, share: principal }) as const;
    const first = await supervisor.spawn({
      agent: 'hang',
      instruction: 'x',
      async: true,
      startedBy: peer('p1'),
    });
    expect(first.startedBy).toEqual({ trust: 'restricted', principal: 'p1' });
    // Its own share is used up; another restricted principal still gets the last restricted run.
    const own = await refusal(supervisor.spawn({ agent: 'hang', instruction: 'x', startedBy: peer('p1') }));
    expect(own.message).toContain(
      'restricted peer may hold 1 concurrent runs at once (limits.restrictedRunsPerPrincipal)',
    );
    await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true, startedBy: peer('p2') });
    const shared = await refusal(
      supervisor.spawn({ agent: 'hang', instruction: 'x', startedBy: peer('p3') }),
    );
    expect(shared.message).toContain('restricted peers share 2 of 3 concurrent runs');
    // Management (the embedder by default) has the reserve.
    expect((await supervisor.spawn({ instruction: 'echo mine', timeoutMs: 60_000 })).output).toBe('mine');
    // The restricted timeout cap: asking for more is refused.
    await supervisor.cancel(first.handle);
    const long = await refusal(
      supervisor.spawn({ instruction: 'echo x', timeoutMs: 5001, startedBy: peer('p1') }),
    );
    expect(long.message).toContain('limits.restrictedMaxTimeoutMs');
  });

  it('cuts a longer default timeout to the restricted cap', async () => {
    const supervisor = makeSupervisor({ limits: { defaultTimeoutMs: 600_000, restrictedMaxTimeoutMs: 200 } });
    const restricted = { trust: 'restricted', principal: 'p', share: 'p' } as const;
    const run = await supervisor.spawn({ agent: 'hang', instruction: 'x', startedBy: restricted });
    expect(run.state).toBe('timed_out');
  });

  it('gives restricted peers nothing when the reserve is the whole pool, and says so', async () => {
    const supervisor = makeSupervisor({ limits: { maxConcurrentRuns: 1 } });
    const restricted = { trust: 'restricted', principal: 'p', share: 'p' } as const;
    const refused = await refusal(supervisor.spawn({ instruction: 'echo x', startedBy: restricted }));
    expect(refused.message).toContain(
      'restricted peers get none of the 1 concurrent runs (limits.reservedRuns keeps 1 for operators)',
    );
    expect((await supervisor.spawn({ instruction: 'echo op' })).output).toBe('op');
  });

  it('refuses runs past maxConcurrentRuns and admits again once one ends', async () => {
    const supervisor = makeSupervisor({ limits: { maxConcurrentRuns: 2 } });
    const a = await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    const refused = await refusal(supervisor.spawn({ instruction: 'echo third' }));
    expect(refused.code).toBe('limit_reached');
    expect(refused.message).toContain('2 of 2 concurrent runs');
    // Warm sessions have their own pool.
    expect((await supervisor.spawn({ instruction: 'echo warm', warm: true })).state).toBe('ready');
    await supervisor.cancel(a.handle);
    expect((await supervisor.spawn({ instruction: 'echo now' })).output).toBe('now');
    expect(supervisor.snapshot().totals.refused).toBe(1);
  });

  it('admits exactly the limit when spawns arrive at once', async () => {
    const supervisor = makeSupervisor({ limits: { maxConcurrentRuns: 3 } });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => supervisor.spawn({ agent: 'hang', instruction: 'x', async: true })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected.map((r) => (r.reason as LocalError).code)).toEqual([
      'limit_reached',
      'limit_reached',
      'limit_reached',
    ]);
  });

  it('refuses warm sessions past maxWarmSessions', async () => {
    const supervisor = makeSupervisor({ limits: { maxWarmSessions: 1 } });
    await supervisor.spawn({ instruction: 'echo one', warm: true });
    expect((await refusal(supervisor.spawn({ instruction: 'echo two', warm: true }))).code).toBe(
      'limit_reached',
    );
  });

  it('evicts the oldest finished handle first and never a live one', async () => {
    const supervisor = makeSupervisor({ limits: { maxTrackedHandles: 3 } });
    const live = await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    const first = await supervisor.spawn({ agent: 'cat', instruction: 'first' });
    const second = await supervisor.spawn({ agent: 'cat', instruction: 'second' });
    const third = await supervisor.spawn({ agent: 'cat', instruction: 'third' });
    expect((await refusal(() => supervisor.status(first.handle))).code).toBe('unknown_handle');
    expect(supervisor.status(live.handle).state).toBe('running');
    expect(supervisor.status(second.handle).output).toBe('second');
    await supervisor.spawn({ agent: 'cat', instruction: 'fourth' });
    expect((await refusal(() => supervisor.status(second.handle))).code).toBe('unknown_handle');
    expect(supervisor.status(third.handle).output).toBe('third');
    expect(supervisor.snapshot()).toMatchObject({ tracked: 3, totals: { evicted: 2 } });
  });

  it('refuses a spawn when every tracked handle is live', async () => {
    const supervisor = makeSupervisor({ limits: { maxTrackedHandles: 2 } });
    await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    const refused = await refusal(supervisor.spawn({ agent: 'cat', instruction: 'x' }));
    expect(refused.code).toBe('limit_reached');
    expect(refused.message).toContain('tracked handles');
  });

  it('refuses bad requests clearly', async () => {
    const supervisor = makeSupervisor({ limits: { maxTimeoutMs: 60_000, maxInstructionBytes: 10 } });
    const unknown = await refusal(supervisor.spawn({ agent: 'nope', instruction: 'x' }));
    expect(unknown.code).toBe('unknown_agent');
    expect(unknown.message).toContain('known: example, cat, upper, hang');
    expect((await refusal(supervisor.spawn({ instruction: '' }))).code).toBe('invalid_request');
    expect((await refusal(supervisor.spawn({ instruction: 'x', timeoutMs: 600_000 }))).code).toBe(
      'invalid_request',
    );
    expect((await refusal(supervisor.spawn({ instruction: 'x', timeoutMs: 0 }))).code).toBe(
      'invalid_request',
    );
    expect((await refusal(supervisor.spawn({ instruction: 'more than ten bytes' }))).code).toBe(
      'invalid_request',
    );
    expect((await refusal(() => supervisor.status('sa_nope'))).code).toBe('unknown_handle');
    expect((await refusal(supervisor.cancel('sa_nope'))).code).toBe('unknown_handle');
    expect(supervisor.list()).toEqual([]);
  });
});

describe('pause, readiness and drain', () => {
  it('pause refuses new spawns while running ones finish; resume admits again', async () => {
    const supervisor = makeSupervisor();
    const running = await supervisor.spawn({ instruction: 'sleep 100', async: true });
    supervisor.pause();
    expect((await refusal(supervisor.spawn({ instruction: 'echo x' }))).code).toBe('paused');
    await statusWhen(supervisor, running.handle, (s) => s.terminal);
    expect(supervisor.status(running.handle).state).toBe('succeeded');
    expect(supervisor.snapshot().paused).toBe(true);
    supervisor.resume();
    expect((await supervisor.spawn({ instruction: 'echo x' })).output).toBe('x');
  });

  it('lame duck flips readiness only', async () => {
    const supervisor = makeSupervisor();
    supervisor.setReady(false);
    expect(supervisor.snapshot().ready).toBe(false);
    expect((await supervisor.spawn({ instruction: 'echo still working' })).state).toBe('succeeded');
    supervisor.setReady(true);
    expect(supervisor.snapshot().ready).toBe(true);
  });

  it('drain lets running work finish, closes idle sessions, cancels the rest at the deadline, keeps results', async () => {
    const supervisor = makeSupervisor();
    const quick = await Promise.all(
      [1, 2, 3].map((i) => supervisor.spawn({ agent: 'cat', instruction: `result ${i}`, async: true })),
    );
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    const stuck = await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    await supervisor.drain(2500);
    expect(quick.map((run) => supervisor.status(run.handle).output)).toEqual([
      'result 1',
      'result 2',
      'result 3',
    ]);
    expect(supervisor.status(session.handle)).toMatchObject({ state: 'succeeded', reason: 'draining' });
    expect(supervisor.status(stuck.handle)).toMatchObject({
      state: 'cancelled',
      reason: 'drain deadline reached',
    });
    expect(supervisor.snapshot()).toMatchObject({ draining: true, ready: false, running: 0, warm: 0 });
    expect((await refusal(supervisor.spawn({ instruction: 'echo late' }))).code).toBe('draining');
    expect((await refusal(() => supervisor.setReady(true))).code).toBe('draining');
  });

  it('drain returns as soon as everything finished, without waiting for the deadline', async () => {
    const supervisor = makeSupervisor();
    const run = await supervisor.spawn({ agent: 'cat', instruction: 'done', async: true });
    await supervisor.drain(600_000);
    expect(supervisor.status(run.handle)).toMatchObject({ state: 'succeeded', output: 'done' });
  });

  it('drain refuses turns on busy sessions afterwards and closes them when their turn ends', async () => {
    const supervisor = makeSupervisor();
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    const turn = supervisor.send(session.handle, 'sleep 100');
    const drained = supervisor.drain(5000);
    expect((await turn).output).toBe('slept 100 ms');
    await drained;
    expect(supervisor.status(session.handle)).toMatchObject({
      state: 'succeeded',
      reason: 'draining',
      turns: 2,
    });
  });
});

describe('reconfigure', () => {
  it('rejects an invalid config as a whole and keeps the old one', () => {
    const supervisor = makeSupervisor();
    const bad = [
      { profiles: testProfiles(), defaultAgent: 'missing', limits: TEST_LIMITS },
      { profiles: [], defaultAgent: 'example', limits: TEST_LIMITS },
      { profiles: [...testProfiles(), sh('cat', 'cat')], defaultAgent: 'example', limits: TEST_LIMITS },
      { profiles: testProfiles(), defaultAgent: 'example', limits: { ...TEST_LIMITS, maxOutputBytes: -1 } },
    ];
    const messages = bad.map((config) => {
      try {
        supervisor.reconfigure(config);
      } catch (error) {
        expect((error as LocalError).code).toBe('invalid_config');
        return (error as LocalError).message;
      }
      return 'accepted';
    });
    expect(messages).toEqual([
      'defaultAgent: "missing" is not one of the profiles',
      'profiles: at least one agent profile is required',
      'profiles[4].name: duplicate agent name "cat"',
      'limits.maxOutputBytes: must be an integer >= 1 (got -1)',
    ]);
    expect(supervisor.snapshot().agents).toEqual(['example', 'cat', 'upper', 'hang']);
  });

  it('applies a new config atomically while running children keep their old profile', async () => {
    const supervisor = makeSupervisor();
    const old = await supervisor.spawn({ agent: 'upper', instruction: 'hi', warm: false, async: true });
    const session = await supervisor.spawn({ instruction: 'echo hi', warm: true });
    supervisor.reconfigure({
      profiles: [exampleAgentProfile('helper'), sh('upper', 'rev')],
      defaultAgent: 'helper',
      limits: { ...TEST_LIMITS, maxConcurrentRuns: 1 },
    });
    await statusWhen(supervisor, old.handle, (s) => s.terminal);
    expect(supervisor.status(old.handle).output).toBe('HI');
    expect((await supervisor.send(session.handle, 'echo still here')).output).toBe('still here');
    expect(supervisor.status(session.handle).agent).toBe('example');
    expect((await supervisor.spawn({ agent: 'upper', instruction: 'abc' })).output).toBe('cba');
    expect((await supervisor.spawn({ instruction: 'echo default' })).agent).toBe('helper');
    expect((await refusal(supervisor.spawn({ agent: 'example', instruction: 'x' }))).code).toBe(
      'unknown_agent',
    );
    expect(supervisor.snapshot()).toMatchObject({ defaultAgent: 'helper', limits: { maxConcurrentRuns: 1 } });
  });

  it('refuses an invalid initial config', () => {
    expect(() => makeSupervisor({ defaultAgent: 'ghost' })).toThrow('defaultAgent');
  });

  it('after dispose everything is refused and no child is left', async () => {
    const supervisor = makeSupervisor();
    const run = await supervisor.spawn({ agent: 'hang', instruction: 'x', async: true });
    await supervisor.dispose();
    expect(supervisor.status(run.handle).state).toBe('cancelled');
    expect((await refusal(supervisor.spawn({ instruction: 'echo x' }))).code).toBe('draining');
  });
});
