/** CodeModeRunner fairness with real workers: fair share of CPU, per-principal caps, the priority lane, bounded queue waits. */
import { EventEmitter, once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteOutcome, ExecuteRequest, OperationCall } from './execute-types.js';
import type { OperationDescriptor } from './operation.js';

const OPS: OperationDescriptor[] = [
  {
    kind: 'query',
    id: 'wait',
    description: 'Waits for the test.',
    args: { type: 'object' },
    outputType: 'unknown',
  },
];

let runners: CodeModeRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.map((runner) => runner.close()));
  runners = [];
});

function pool(options: ConstructorParameters<typeof CodeModeRunner>[0]): CodeModeRunner {
  const runner = new CodeModeRunner(options);
  runners.push(runner);
  return runner;
}

/** Who entered the host call, in order; `arrived(who)` resolves once `who` has. */
function arrivals() {
  const entered: string[] = [];
  const events = new EventEmitter();
  return {
    entered,
    enter(who: string): void {
      entered.push(who);
      events.emit(who);
    },
    async arrived(who: string): Promise<void> {
      if (!entered.includes(who)) await once(events, who);
    },
  };
}

/** A host call that parks until released, recording who called it. */
function gate() {
  const { entered, enter, arrived } = arrivals();
  const releases: Array<() => void> = [];
  const call: OperationCall = (_kind, _id, args) => {
    enter(String((args as { who: string }).who));
    return new Promise((resolve) => releases.push(() => resolve(null)));
  };
  const releaseAll = (): void => {
    for (const release of releases.splice(0)) release();
  };
  return { entered, arrived, call, releaseAll };
}

/** The runner emits nothing when it starts or queues work: its counters are polled, this long. */
const COUNTERS = { timeout: 30_000, interval: 5 };

const waiter = (who: string, call: OperationCall, extra: Partial<ExecuteRequest>): ExecuteRequest => ({
  code: `await agentd.query('wait', { who: ${JSON.stringify(who)} }); return ${JSON.stringify(who)};`,
  namespace: 'agentd',
  operations: OPS,
  call,
  ...extra,
});

describe('CodeModeRunner fairness', () => {
  it('caps what one principal runs at once; another principal is not held behind it', async () => {
    const runner = pool({ workers: 1, maxRunningPerPrincipal: 1 });
    const { entered, arrived, call, releaseAll } = gate();
    const outcomes: Array<Promise<ExecuteOutcome>> = [];
    outcomes.push(runner.execute(waiter('a1', call, { principal: 'a' })));
    await arrived('a1');
    outcomes.push(runner.execute(waiter('a2', call, { principal: 'a' })));
    outcomes.push(runner.execute(waiter('b1', call, { principal: 'b' })));
    await arrived('b1');
    // a2 was queued before b1, yet b1 runs while a2 waits for a's only slot.
    expect(runner.stats()).toMatchObject({ running: 2, queued: 1 });
    expect(entered).toEqual(['a1', 'b1']);
    releaseAll();
    await arrived('a2');
    releaseAll();
    expect((await Promise.all(outcomes)).map((o) => o.ok && o.value)).toEqual(['a1', 'a2', 'b1']);
  });

  it('a priority caller is never queued behind restricted callers’ CPU hogs', async () => {
    const runner = pool({ workers: 1, maxWorkers: 3, priorityWorkers: 1, overflowAfterMs: 0 });
    const hogs = new AbortController();
    let hogsEnded = 0;
    const running = Array.from({ length: 4 }, (_, i) =>
      runner
        .execute({
          code: 'while (true) {}',
          namespace: 'agentd',
          operations: [],
          call: async () => null,
          principal: `restricted-${i}`,
          signal: hogs.signal,
          limits: { cpuMs: 60_000, wallMs: 60_000 },
        })
        .finally(() => {
          hogsEnded += 1;
        }),
    );
    await vi.waitFor(
      () => expect(runner.stats().running, 'two hogs running').toBeGreaterThanOrEqual(2),
      COUNTERS,
    );
    const outcome = await runner.execute({
      code: 'return 40 + 2;',
      namespace: 'agentd',
      operations: [],
      call: async () => null,
      principal: 'operator',
      priority: true,
    });
    expect(outcome).toMatchObject({ ok: true, value: 42 });
    expect(hogsEnded).toBe(0);
    hogs.abort();
    await Promise.all(running);
  });

  it('ends a wait for a worker that does not come with a clear busy error', async () => {
    // One worker taking one execution at a time: the second must wait, and gives up after 200 ms.
    const runner = pool({ workers: 1, maxWorkers: 1, maxConcurrentPerWorker: 1, maxQueueWaitMs: 200 });
    const { entered, arrived, call, releaseAll } = gate();
    const held = runner.execute(waiter('held', call, { principal: 'x' }));
    await arrived('held');
    const late = await runner.execute(waiter('late', call, { principal: 'y' }));
    expect(late).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(late.ok === false && late.error.message).toContain('Waited 200 ms for a Code Mode worker');
    expect(entered).toEqual(['held']);
    releaseAll();
    expect(await held).toMatchObject({ ok: true, value: 'held' });
  });

  it('answers busy at once past a principal’s queue bound', async () => {
    const runner = pool({ workers: 1, maxRunningPerPrincipal: 1, maxQueuedPerPrincipal: 1 });
    const { arrived, call, releaseAll } = gate();
    const first = runner.execute(waiter('1', call, { principal: 'a' }));
    await arrived('1');
    const second = runner.execute(waiter('2', call, { principal: 'a' }));
    const third = await runner.execute(waiter('3', call, { principal: 'a' }));
    expect(third).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(third.ok === false && third.error.message).toContain('of this caller are waiting');
    releaseAll();
    await arrived('2');
    releaseAll();
    expect(await first).toMatchObject({ ok: true });
    expect(await second).toMatchObject({ ok: true });
  });

  it('starts a light caller before the queued second runs of principals that have just run CPU hogs', async () => {
    // Two standard-lane threads, one execution each: whoever starts next takes the next freed worker.
    const runner = pool({ workers: 2, maxWorkers: 3, priorityWorkers: 1, maxConcurrentPerWorker: 1 });
    const { entered, enter, arrived } = arrivals();
    const mark: OperationCall = async (_kind, _id, args) => {
      enter(String((args as { who: string }).who));
      return null;
    };
    const hog = (who: string, cpuMs: number, signal?: AbortSignal): Promise<ExecuteOutcome> =>
      runner.execute({
        code: `await agentd.query('wait', { who: ${JSON.stringify(who)} }); while (true) {}`,
        namespace: 'agentd',
        operations: OPS,
        call: mark,
        principal: who.split('.')[0] as string,
        limits: { cpuMs, wallMs: 60_000 },
        ...(signal === undefined ? {} : { signal }),
      });
    const lightRun = () =>
      runner.execute({
        code: `await agentd.query('wait', { who: 'light' }); return 'light';`,
        namespace: 'agentd',
        operations: OPS,
        call: mark,
        principal: 'light',
      });
    // The light caller has run before, using next to no CPU: it is known to be light (a principal
    // without a history is charged half a typical execution, here more than the hogs' 150 ms).
    expect(await lightRun()).toMatchObject({ ok: true, value: 'light' });
    entered.splice(0);
    // Round 1: four principals each run a hog to its CPU limit; all four are now heavy.
    const first = await Promise.all(['h0', 'h1', 'h2', 'h3'].map((name) => hog(`${name}.1`, 150)));
    for (const outcome of first)
      expect(outcome).toMatchObject({ ok: false, error: { code: 'cpu_deadline' } });
    // Round 2: h0 holds one worker for long, h1 the other for 1.5 s (time enough to queue the
    // rest under load); h2 and h3 queue behind them.
    const long = new AbortController();
    const second = [hog('h0.2', 50_000, long.signal), hog('h1.2', 1_500)];
    await Promise.all([arrived('h0.2'), arrived('h1.2')]);
    second.push(hog('h2.2', 300), hog('h3.2', 300));
    await vi.waitFor(() => expect(runner.stats().queued, 'two runs queued').toBe(2), COUNTERS);
    // The light caller queued last; round-robin started h2.2 and h3.2 first (two CPU limits).
    const light = await lightRun();
    expect(light).toMatchObject({ ok: true, value: 'light' });
    // It took the first worker to free (h1.2's): neither queued hog had started.
    expect(entered).toContain('light');
    expect(entered).not.toContain('h2.2');
    expect(entered).not.toContain('h3.2');
    await arrived('h3.2');
    long.abort();
    const ends = await Promise.all(second);
    expect(ends.map((outcome) => !outcome.ok && outcome.error.code)).toEqual([
      'aborted',
      'cpu_deadline',
      'cpu_deadline',
      'cpu_deadline',
    ]);
    // Then the queued hogs, the lighter of the two first (both used about the same).
    expect(entered.slice(entered.indexOf('light')).sort()).toEqual(['h2.2', 'h3.2', 'light']);
  }, 60_000);

  it('charges the CPU a principal used, not the time it waited on the host', async () => {
    // One standard-lane thread taking one execution at a time.
    const runner = pool({ workers: 1, maxWorkers: 2, priorityWorkers: 1, maxConcurrentPerWorker: 1 });
    const { entered, enter, arrived } = arrivals();
    const held: Array<() => void> = [];
    const call: OperationCall = (_kind, _id, args) => {
      const who = String((args as { who: string }).who);
      enter(who);
      // sleep-is-the-point: the waiter holds its slot on the host longer than the hog computed.
      if (who === 'waiter.1') return new Promise((resolve) => setTimeout(() => resolve(null), 400));
      if (who === 'blocker') return new Promise((resolve) => held.push(() => resolve(null)));
      return Promise.resolve(null);
    };
    const script = (who: string, tail: string, limits?: ExecuteRequest['limits']): Promise<ExecuteOutcome> =>
      runner.execute({
        code: `await agentd.query('wait', { who: ${JSON.stringify(who)} }); ${tail}`,
        namespace: 'agentd',
        operations: OPS,
        call,
        principal: who.split('.')[0] as string,
        ...(limits === undefined ? {} : { limits }),
      });
    // The hog computes 150 ms; then the waiter waits 400 ms on the host and computes nothing.
    expect(await script('hog.1', 'while (true) {}', { cpuMs: 150 })).toMatchObject({
      ok: false,
      error: { code: 'cpu_deadline' },
    });
    expect(await script('waiter.1', 'return 1;')).toMatchObject({ ok: true, value: 1 });
    // Both queue behind a blocker, the hog first; the waiter was served last, yet used less CPU.
    const blocker = script('blocker', 'return 0;');
    await arrived('blocker');
    const hog = script('hog.2', 'return 2;');
    const waiter = script('waiter.2', 'return 2;');
    await vi.waitFor(() => expect(runner.stats().queued, 'two runs queued').toBe(2), COUNTERS);
    for (const release of held.splice(0)) release();
    expect((await Promise.all([blocker, hog, waiter])).map((o) => o.ok)).toEqual([true, true, true]);
    expect(entered.slice(entered.indexOf('blocker'))).toEqual(['blocker', 'waiter.2', 'hog.2']);
  }, 60_000);
});
