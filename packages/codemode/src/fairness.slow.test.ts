/** CodeModeRunner fairness with real workers: fair share of CPU, per-principal caps, the priority lane, bounded queue waits. */
import { afterEach, describe, expect, it } from 'vitest';
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

/** A host call that parks until released, recording who called it. */
function gate() {
  const entered: string[] = [];
  const releases: Array<() => void> = [];
  const call: OperationCall = (_kind, _id, args) => {
    entered.push(String((args as { who: string }).who));
    return new Promise((resolve) => releases.push(() => resolve(null)));
  };
  const releaseAll = (): void => {
    for (const release of releases.splice(0)) release();
  };
  return { entered, call, releaseAll };
}

const waiter = (who: string, call: OperationCall, extra: Partial<ExecuteRequest>): ExecuteRequest => ({
  code: `await agentd.query('wait', { who: ${JSON.stringify(who)} }); return ${JSON.stringify(who)};`,
  namespace: 'agentd',
  operations: OPS,
  call,
  ...extra,
});

function waitUntil(test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (test()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error('condition not reached'));
      else setTimeout(tick, 5);
    };
    tick();
  });
}

describe('CodeModeRunner fairness', () => {
  it('caps what one principal runs at once; another principal is not held behind it', async () => {
    const runner = pool({ workers: 1, maxRunningPerPrincipal: 1 });
    const { entered, call, releaseAll } = gate();
    const outcomes: Array<Promise<ExecuteOutcome>> = [];
    outcomes.push(runner.execute(waiter('a1', call, { principal: 'a' })));
    await waitUntil(() => entered.includes('a1'));
    outcomes.push(runner.execute(waiter('a2', call, { principal: 'a' })));
    outcomes.push(runner.execute(waiter('b1', call, { principal: 'b' })));
    await waitUntil(() => entered.includes('b1'));
    // a2 was queued before b1, yet b1 runs while a2 waits for a's only slot.
    expect(runner.stats()).toMatchObject({ running: 2, queued: 1 });
    expect(entered).toEqual(['a1', 'b1']);
    releaseAll();
    await waitUntil(() => entered.includes('a2'));
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
    await waitUntil(() => runner.stats().running >= 2);
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
    const { entered, call, releaseAll } = gate();
    const held = runner.execute(waiter('held', call, { principal: 'x' }));
    await waitUntil(() => entered.includes('held'));
    const late = await runner.execute(waiter('late', call, { principal: 'y' }));
    expect(late).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(late.ok === false && late.error.message).toContain('Waited 200 ms for a Code Mode worker');
    expect(entered).toEqual(['held']);
    releaseAll();
    expect(await held).toMatchObject({ ok: true, value: 'held' });
  });

  it('answers busy at once past a principal’s queue bound', async () => {
    const runner = pool({ workers: 1, maxRunningPerPrincipal: 1, maxQueuedPerPrincipal: 1 });
    const { entered, call, releaseAll } = gate();
    const first = runner.execute(waiter('1', call, { principal: 'a' }));
    await waitUntil(() => entered.includes('1'));
    const second = runner.execute(waiter('2', call, { principal: 'a' }));
    const third = await runner.execute(waiter('3', call, { principal: 'a' }));
    expect(third).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(third.ok === false && third.error.message).toContain('of this caller are waiting');
    releaseAll();
    await waitUntil(() => entered.includes('2'));
    releaseAll();
    expect(await first).toMatchObject({ ok: true });
    expect(await second).toMatchObject({ ok: true });
  });

  it('starts a light caller before the queued second runs of principals that have just run CPU hogs', async () => {
    // Two standard-lane threads, one execution each: whoever starts next takes the next freed worker.
    const runner = pool({ workers: 2, maxWorkers: 3, priorityWorkers: 1, maxConcurrentPerWorker: 1 });
    const entered: string[] = [];
    const mark: OperationCall = async (_kind, _id, args) => {
      entered.push(String((args as { who: string }).who));
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
    // Round 1: four principals each run a hog to its CPU limit; all four are now heavy.
    const first = await Promise.all(['h0', 'h1', 'h2', 'h3'].map((name) => hog(`${name}.1`, 150)));
    for (const outcome of first)
      expect(outcome).toMatchObject({ ok: false, error: { code: 'cpu_deadline' } });
    // Round 2: h0 holds one worker for long, h1 the other for 1.5 s (time enough to queue the
    // rest under load); h2 and h3 queue behind them.
    const long = new AbortController();
    const second = [hog('h0.2', 50_000, long.signal), hog('h1.2', 1_500)];
    await waitUntil(() => entered.includes('h0.2') && entered.includes('h1.2'), 30_000);
    second.push(hog('h2.2', 300), hog('h3.2', 300));
    await waitUntil(() => runner.stats().queued === 2, 30_000);
    // The light caller queued last; round-robin started h2.2 and h3.2 first (two CPU limits).
    const light = await runner.execute({
      code: `await agentd.query('wait', { who: 'light' }); return 'light';`,
      namespace: 'agentd',
      operations: OPS,
      call: mark,
      principal: 'light',
    });
    expect(light).toMatchObject({ ok: true, value: 'light' });
    // It took the first worker to free (h1.2's): neither queued hog had started.
    expect(entered).toContain('light');
    expect(entered).not.toContain('h2.2');
    expect(entered).not.toContain('h3.2');
    await waitUntil(() => entered.includes('h3.2'), 30_000);
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
    const entered: string[] = [];
    const held: Array<() => void> = [];
    const call: OperationCall = (_kind, _id, args) => {
      const who = String((args as { who: string }).who);
      entered.push(who);
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
    await waitUntil(() => entered.includes('blocker'), 30_000);
    const hog = script('hog.2', 'return 2;');
    const waiter = script('waiter.2', 'return 2;');
    await waitUntil(() => runner.stats().queued === 2, 30_000);
    for (const release of held.splice(0)) release();
    expect((await Promise.all([blocker, hog, waiter])).map((o) => o.ok)).toEqual([true, true, true]);
    expect(entered.slice(entered.indexOf('blocker'))).toEqual(['blocker', 'waiter.2', 'hog.2']);
  }, 60_000);
});
