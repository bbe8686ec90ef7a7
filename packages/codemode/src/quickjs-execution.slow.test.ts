import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteOutcome, ExecuteRequest } from './execute-types.js';

const MiB = 1024 * 1024;
const runner = new CodeModeRunner({
  workers: 2,
  limits: { cpuMs: 3_000, wallMs: 20_000, memoryBytes: 32 * MiB },
});
afterAll(() => runner.close());

function run(code: string, extra: Partial<ExecuteRequest> = {}): Promise<ExecuteOutcome> {
  return runner.execute({
    code,
    namespace: 'agentd',
    operations: [],
    call: async (_k, _id, args) => args,
    ...extra,
  });
}

function codeOf(outcome: ExecuteOutcome): string {
  return outcome.ok ? `ok:${JSON.stringify(outcome.value)}` : outcome.error.code;
}

describe('CPU deadline', () => {
  test('covers code that runs after an await', async () => {
    const outcome = await run(`await agentd.query('tick', {}); await 1; while (true) {}`, {
      limits: { cpuMs: 250 },
    });
    expect(codeOf(outcome)).toBe('cpu_deadline');
  });

  test('cannot be caught by the script', async () => {
    const outcome = await run(
      `try { while (true) {} } catch (e) { return 'caught'; } finally { return 'finally'; }`,
      {
        limits: { cpuMs: 200 },
      },
    );
    expect(codeOf(outcome)).toBe('cpu_deadline');
  });

  test('counts guest time only, not time waiting on the host', async () => {
    const outcome = await run(`for (let i = 0; i < 3; i++) await agentd.query('slow', {}); return 'done';`, {
      limits: { cpuMs: 500 },
      // sleep-is-the-point: 3 × 300 ms on the host is more wall time than the 500 ms CPU budget.
      call: () => new Promise((resolve) => setTimeout(() => resolve(null), 300)),
    });
    expect(outcome).toMatchObject({ ok: true, value: 'done' });
  });
});

describe('memory cap', () => {
  test('array and object bombs stop with out_of_memory and the host stays bounded', async () => {
    const before = process.memoryUsage().rss;
    const bombs = [
      'const a = []; while (true) a.push(new Array(1e5).fill(1));',
      'const a = []; let i = 0; while (true) a.push({ i: i++, s: "x" + i });',
      'const m = new Map(); let i = 0; while (true) m.set(i, [i++]);',
    ];
    // Guest CPU is timed as the guest's slices on the clock, which a loaded machine stretches:
    // limits far above what filling 32 MiB takes, so the memory cap is what stops each bomb.
    const outcomes = await Promise.all(
      bombs.map((code) => run(code, { limits: { cpuMs: 90_000, wallMs: 120_000 } })),
    );
    expect(outcomes.map(codeOf)).toEqual(['out_of_memory', 'out_of_memory', 'out_of_memory']);
    // Three 32 MiB sandboxes at most; without the cap one bomb alone reaches gigabytes.
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * MiB);
    expect(await run('return "alive";')).toMatchObject({ ok: true, value: 'alive' });
  }, 150_000);

  test('a caught out-of-memory error does not let the script grow further', async () => {
    const outcome = await run(`
      const hoard = [];
      for (let round = 0; round < 5; round++) {
        try { while (true) hoard.push(new Array(1e4).fill(round)); } catch (e) { hoard.length = 0; }
      }
      return 'survived';`);
    expect(['ok:"survived"', 'out_of_memory']).toContain(codeOf(outcome));
  });

  test('huge strings are contained', async () => {
    const attempts = [
      'const s = "x".repeat(2 ** 29); return s.length;',
      'let s = "ab"; while (true) s = s + s;',
      'let s = "ab"; while (true) s = (s + s).toUpperCase();',
    ];
    for (const code of attempts) {
      expect(['out_of_memory', 'script_error']).toContain(codeOf(await run(code)));
    }
    const big = await run('return "y".repeat(5e6);', { limits: { maxResultBytes: 1000 } });
    expect(big).toMatchObject({
      ok: true,
      truncated: true,
      value: expect.stringMatching(/more characters truncated]$/),
    });
  });

  test('deep recursion is a stack overflow, not a crash', async () => {
    const outcome = await run('function f(n) { return f(n + 1) + 1; } return f(0);');
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'script_error', message: expect.stringMatching(/stack overflow/i) },
    });
    const nested = await run('let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return String(a);');
    expect(nested.ok).toBe(false);
    expect(await run('return 1 + 1;')).toMatchObject({ ok: true, value: 2 });
  });
});

describe('off the main thread', () => {
  test('a CPU-heavy script does not stall the main thread or other executions', async () => {
    const server = createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      let spinning!: () => void;
      const started = new Promise<void>((resolve) => {
        spinning = resolve;
      });
      let heavyDone = false;
      const stopHeavy = new AbortController();
      const heavy = run(`await agentd.query('start', {}); let x = 0; while (true) { x++; }`, {
        limits: { cpuMs: 60_000, wallMs: 60_000 },
        signal: stopHeavy.signal,
        call: async () => {
          setImmediate(spinning);
          return null;
        },
      }).then((outcome) => {
        heavyDone = true;
        return outcome;
      });
      await started;
      const reply = await fetch(`http://127.0.0.1:${port}/`).then((res) => res.text());
      const other = await run('return [1, 2, 3].map((n) => n * 2);');
      expect(reply).toBe('pong');
      expect(other).toMatchObject({ ok: true, value: [2, 4, 6] });
      expect(heavyDone).toBe(false);
      stopHeavy.abort();
      expect(codeOf(await heavy)).toBe('aborted');
    } finally {
      server.close();
    }
  });
});
