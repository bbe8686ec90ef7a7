/** CodeModeRunner: call limits, abort, the wall clock and the worker pool. */
import { afterAll, describe, expect, test, vi } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteOutcome, ExecuteRequest } from './execute-types.js';
import { catalogueBridge, OPERATIONS } from './test-support/catalogue.js';

const runner = new CodeModeRunner({ workers: 2, limits: { cpuMs: 2_000, wallMs: 10_000 } });
afterAll(() => runner.close());

function run(code: string, extra: Partial<ExecuteRequest> = {}): Promise<ExecuteOutcome> {
  const bridge = catalogueBridge();
  return runner.execute({ code, namespace: 'agentd', operations: OPERATIONS, call: bridge.call, ...extra });
}

function errorOf(outcome: ExecuteOutcome): { code: string; message: string } {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe('call limits', () => {
  test('more calls than allowed end the execution, even when each is caught', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(
      `for (let i = 0; i < 20; i++) { try { await agentd.report('ServerStats', { i }); } catch {} }
       return 'done';`,
      { call: bridge.call, limits: { maxCalls: 5 } },
    );
    expect(errorOf(outcome)).toEqual({
      code: 'too_many_calls',
      message: 'Script made more than 5 operation calls',
    });
    expect(bridge.calls).toHaveLength(5);
  });

  test('oversized arguments and results fail the call, catchably', async () => {
    const outcome = await run(
      `const out = [];
       try { await agentd.report('ServerStats', { blob: 'x'.repeat(5000) }); } catch (e) { out.push(e.message); }
       try { await agentd.query('big', {}); } catch (e) { out.push(e.message); }
       return out;`,
      {
        limits: { maxArgBytes: 1000, maxCallResultBytes: 1000 },
        call: async () => ({ data: 'y'.repeat(5000) }),
      },
    );
    expect(outcome).toMatchObject({
      ok: true,
      value: [
        expect.stringMatching(/^Arguments for report_ServerStats are too large \(\d+ bytes, limit 1000\)$/),
        expect.stringMatching(/^Result of query_big is too large \(\d+ bytes, limit 1000\)$/),
      ],
    });
  });

  test('huge ids and huge host error messages are capped', async () => {
    const calls: string[] = [];
    const outcome = await run(
      `const out = [];
       try { await agentd.query('x'.repeat(100000), {}); } catch (e) { out.push(e.message.length); }
       try { await agentd.query('loud', {}); } catch (e) { out.push(e.message.length); }
       return out;`,
      {
        call: async (_kind, id) => {
          calls.push(id);
          throw new Error('e'.repeat(100_000));
        },
      },
    );
    expect(outcome).toMatchObject({ ok: true, value: [expect.any(Number), 4097] });
    if (outcome.ok) expect((outcome.value as number[])[0]).toBeLessThan(100);
    expect(calls).toEqual(['loud']);
  });

  test('a large result is truncated structurally and stays valid JSON', async () => {
    const outcome = await run(
      `return { items: Array.from({ length: 5000 }, (_, i) => ({ i, name: 'item ' + i })), note: 'z'.repeat(10000) };`,
      { limits: { maxResultBytes: 4096 } },
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.truncated).toBe(true);
    const text = JSON.stringify(outcome.value);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    const value = outcome.value as { items: unknown[]; note: string };
    expect(value.items[0]).toEqual({ i: 0, name: 'item 0' });
    expect(value.items.at(-1)).toMatch(/more items truncated$/);
  });

  test('calls still pending when the script returns are aborted and dropped', async () => {
    let seen: AbortSignal | undefined;
    const outcome = await run(`agentd.command('slow', {}); return 'early';`, {
      call: (_kind, _id, _args, context) => {
        seen = context.signal;
        return new Promise(() => {});
      },
    });
    expect(outcome).toMatchObject({ ok: true, value: 'early' });
    expect(seen?.aborted).toBe(true);
  });
});

describe('abort, wall clock and the pool', () => {
  test('abort mid-script while waiting on a host call', async () => {
    const controller = new AbortController();
    let callSignal: AbortSignal | undefined;
    const outcome = run(
      `await agentd.query('GetAllServers', {}); await agentd.command('block', {}); return 'finished';`,
      {
        signal: controller.signal,
        call: (kind, _id, _args, context) => {
          if (kind === 'query') return Promise.resolve({ count: 1 });
          callSignal = context.signal;
          controller.abort();
          return new Promise(() => {});
        },
      },
    );
    expect(errorOf(await outcome)).toEqual({ code: 'aborted', message: 'Execution aborted' });
    expect(callSignal?.aborted).toBe(true);
  });

  test('abort while the script computes', async () => {
    const controller = new AbortController();
    const outcome = run(`await agentd.query('GetAllServers', {}); while (true) {}`, {
      signal: controller.signal,
      limits: { cpuMs: 8_000 },
      call: async () => {
        setImmediate(() => controller.abort());
        return {};
      },
    });
    expect(errorOf(await outcome).code).toBe('aborted');
    expect(await run('return "after"')).toMatchObject({ ok: true, value: 'after' });
  });

  test('an already aborted signal never starts the script', async () => {
    const bridge = catalogueBridge();
    const outcome = await run(`await agentd.query('GetAllServers', {});`, {
      signal: AbortSignal.abort(),
      call: bridge.call,
    });
    expect(errorOf(outcome).code).toBe('aborted');
    expect(bridge.calls).toHaveLength(0);
  });

  test('the wall clock covers time spent waiting on the host', async () => {
    const outcome = await run(`await agentd.command('hang', {});`, {
      limits: { wallMs: 300 },
      call: () => new Promise(() => {}),
    });
    expect(errorOf(outcome)).toEqual({
      code: 'wall_clock',
      message: 'Script exceeded its wall-clock limit of 300 ms',
    });
  });

  test('a worker stuck in a native builtin past the wall clock is terminated and replaced', async () => {
    // Array.prototype.sort with the default comparator never polls the interrupt handler.
    const local = new CodeModeRunner({
      workers: 1,
      stopGraceMs: 200,
      limits: { wallMs: 400, cpuMs: 60_000, memoryBytes: 320 * 1024 * 1024 },
    });
    try {
      // Warm the worker so the wall clock is spent in the script, not in starting the thread.
      await local.execute({
        code: 'return 0',
        namespace: 'agentd',
        operations: [],
        call: async () => null,
        limits: { wallMs: 20_000 },
      });
      const stuck = await local.execute({
        code: `const b = Array.from({ length: 1e5 }, (_, i) => (i * 7919) % 100003);
               const a = [].concat(...new Array(40).fill(b));
               a.sort();
               return 1;`,
        namespace: 'agentd',
        operations: [],
        call: async () => null,
      });
      expect(errorOf(stuck).code).toBe('wall_clock');
      const next = await local.execute({
        code: 'return 7',
        namespace: 'agentd',
        operations: [],
        call: async () => null,
        limits: { wallMs: 20_000 },
      });
      expect(next).toMatchObject({ ok: true, value: 7 });
      expect(local.stats().workerRestarts).toBe(1);
    } finally {
      await local.close();
    }
  });

  test('50 concurrent executions all complete with their own results', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        run(
          `const r = await agentd.report('echo', { i: ${i} }); const s = await agentd.report('echo', { i: r.i * 2 }); return s.i;`,
          {
            call: async (_kind, _id, args) => args,
          },
        ),
      ),
    );
    expect(outcomes.map((o) => (o.ok ? o.value : o.error.code))).toEqual(
      Array.from({ length: 50 }, (_, i) => i * 2),
    );
  });

  test('a trivial script never waits behind CPU hogs: an overflow worker takes it', async () => {
    const base = 2;
    const local = new CodeModeRunner({ workers: base, overflowIdleMs: 50, limits: { cpuMs: 3_000 } });
    const request = { namespace: 'agentd', operations: [], call: async () => null };
    try {
      let hogsSettled = 0;
      const hogs = Array.from({ length: base }, () =>
        local.execute({ ...request, code: 'while (true) {}' }).finally(() => {
          hogsSettled += 1;
        }),
      );
      const trivial = await local.execute({ ...request, code: 'return 1' });
      expect(trivial).toMatchObject({ ok: true, value: 1 });
      // Placed on a worker that is computing, it would only have started once a hog ended.
      expect(hogsSettled).toBe(0);
      expect(local.stats().workers).toBe(base + 1);
      for (const hog of await Promise.all(hogs)) expect(errorOf(hog).code).toBe('cpu_deadline');
      // The idle overflow thread is retired; the base workers stay.
      await vi.waitFor(() => expect(local.stats().workers).toBe(base), { timeout: 5_000 });
      expect(local.stats().workerRestarts).toBe(0);
    } finally {
      await local.close();
    }
  });

  test('at maxWorkers an execution queues rather than joining a computing worker', async () => {
    const local = new CodeModeRunner({ workers: 1, maxWorkers: 1, limits: { cpuMs: 1_000 } });
    let computing!: () => void;
    const started = new Promise<void>((resolve) => {
      computing = resolve;
    });
    const base = { namespace: 'agentd', operations: [] };
    try {
      const hog = local.execute({
        ...base,
        code: `agentd.query('spin', {}); while (true) {}`,
        call: async () => {
          computing();
          return null;
        },
      });
      await started;
      let trivialSettled = false;
      const trivial = local.execute({ ...base, code: 'return 2', call: async () => null }).finally(() => {
        trivialSettled = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(local.stats()).toMatchObject({ workers: 1, running: 1, queued: 1 });
      expect(errorOf(await hog).code).toBe('cpu_deadline');
      expect(trivialSettled).toBe(false);
      expect(await trivial).toMatchObject({ ok: true, value: 2 });
    } finally {
      await local.close();
    }
  });

  test('executions parked on host calls share a worker', async () => {
    const local = new CodeModeRunner({ workers: 1, maxWorkers: 4 });
    const waiting: Array<() => void> = [];
    const request = {
      namespace: 'agentd',
      operations: [],
      code: `return await agentd.query('wait', {});`,
      call: () =>
        new Promise<unknown>((resolve) => {
          waiting.push(() => resolve('done'));
        }),
    };
    try {
      const first = local.execute(request);
      await vi.waitFor(() => expect(waiting).toHaveLength(1));
      const second = local.execute(request);
      await vi.waitFor(() => expect(waiting).toHaveLength(2));
      expect(local.stats()).toMatchObject({ workers: 1, running: 2 });
      for (const release of waiting) release();
      expect(await Promise.all([first, second])).toMatchObject([
        { ok: true, value: 'done' },
        { ok: true, value: 'done' },
      ]);
    } finally {
      await local.close();
    }
  });

  test('a full queue answers busy; close ends what is left', async () => {
    const local = new CodeModeRunner({ workers: 1, maxConcurrentPerWorker: 1, maxQueued: 1 });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const hang = {
      namespace: 'agentd',
      operations: [],
      call: () => {
        started();
        return new Promise<unknown>(() => {});
      },
    };
    const first = local.execute({ ...hang, code: `await agentd.query('a', {});` });
    await running;
    const second = local.execute({ ...hang, code: `await agentd.query('b', {});` });
    const third = await local.execute({ ...hang, code: 'return 1' });
    expect(errorOf(third).code).toBe('busy');
    expect(local.stats()).toMatchObject({ workers: 1, running: 1, queued: 1 });
    await local.close();
    expect(errorOf(await first).code).toBe('closed');
    expect(errorOf(await second).code).toBe('closed');
    expect(errorOf(await local.execute({ ...hang, code: 'return 1' })).code).toBe('closed');
  });
});
