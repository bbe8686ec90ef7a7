/**
 * Code Mode fairness: a trivial `execute` while CPU hogs from other principals run, as a ratio to
 * the same execute on an idle pool (goal: ≤ 2× with 16 hogs). The victim is measured in both lanes:
 * priority (a management caller) and standard (another restricted principal). Then fair share:
 * 24 hog principals looping at `cpuMs` 1500 on 8 workers, more than the workers can take, and a
 * light principal's trivial execute (goal: it waits at most about one CPU limit, not for the turns
 * of the hogs queued before it).
 */
import { bench, describe } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteRequest } from './execute-types.js';

const call = async (_kind: string, _id: string, args: unknown) => args;
const request = (code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
  code,
  namespace: 'agentd',
  operations: [],
  call,
  ...extra,
});

function percentile(times: number[], p: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
}

async function trivialTimes(
  runner: CodeModeRunner,
  extra: Partial<ExecuteRequest>,
  runs: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const outcome = await runner.execute(request('return 1 + 2;', extra));
    if (!outcome.ok) throw new Error(`trivial execute failed: ${outcome.error.message}`);
    times.push(performance.now() - start);
  }
  return times;
}

/** `count` principals, each keeping one `while (true) {}` running (re-submitted as each hits its CPU limit). */
function startHogs(
  runner: CodeModeRunner,
  count: number,
  cpuMs = 2_000,
  onEnd: (hog: number) => void = () => {},
): () => Promise<void> {
  let stopped = false;
  const controllers: AbortController[] = [];
  const loops = Array.from({ length: count }, async (_, i) => {
    while (!stopped) {
      const controller = new AbortController();
      controllers[i] = controller;
      await runner.execute(
        request('while (true) {}', {
          principal: `hog-${i}`,
          signal: controller.signal,
          limits: { cpuMs },
        }),
      );
      onEnd(i);
    }
  });
  return async () => {
    stopped = true;
    for (const controller of controllers) controller?.abort();
    await Promise.all(loops);
  };
}

async function summary(): Promise<string> {
  const runner = new CodeModeRunner();
  const runs = 40;
  const lanes: Array<[string, Partial<ExecuteRequest>]> = [
    ['priority lane (management caller)', { principal: 'operator', priority: true }],
    ['standard lane (another principal)', { principal: 'victim' }],
  ];
  await trivialTimes(runner, {}, 20); // warm the pool
  const rows: string[] = [];
  for (const [label, extra] of lanes) {
    const idle = await trivialTimes(runner, extra, runs);
    const stop = startHogs(runner, 16);
    // Let the hogs take their workers (the pool overflows after 50 ms of computing).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const loaded = await trivialTimes(runner, extra, runs);
    await stop();
    const [i50, i99, l50, l99] = [
      percentile(idle, 50),
      percentile(idle, 99),
      percentile(loaded, 50),
      percentile(loaded, 99),
    ];
    rows.push(
      `  ${label.padEnd(36)} idle p50 ${i50.toFixed(2)} ms p99 ${i99.toFixed(2)} ms | 16 hogs p50 ${l50.toFixed(2)} ms p99 ${l99.toFixed(2)} ms | ratio p50 ${(l50 / i50).toFixed(2)}× p99 ${(l99 / i99).toFixed(2)}×`,
    );
  }
  await runner.close();
  return `\nCode Mode fairness (trivial execute, 16 CPU hogs from other principals)\n${rows.join('\n')}\n`;
}

/** The scenario: more CPU hogs than workers, each its own principal, and one light principal. */
async function fairShareSummary(): Promise<string> {
  const hogs = 24;
  const cpuMs = 1_500;
  const maxWorkers = 8;
  const runs = 30;
  const runner = new CodeModeRunner({ workers: maxWorkers - 1, maxWorkers });
  const light = { principal: 'light' };
  await trivialTimes(runner, {}, 20); // warm the pool
  const idle = await trivialTimes(runner, light, runs);
  const ended = new Set<number>();
  const stop = startHogs(runner, hogs, cpuMs, (hog) => ended.add(hog));
  // Until every hog has run once: before that, a queued hog has used no more than the light caller.
  while (ended.size < hogs) await new Promise((resolve) => setTimeout(resolve, 50));
  const loaded: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Arrive at unrelated moments of the hogs' cycle.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 100)));
    loaded.push(...(await trivialTimes(runner, light, 1)));
  }
  await stop();
  await runner.close();
  const [i50, iMax, l50, lMax] = [
    percentile(idle, 50),
    Math.max(...idle),
    percentile(loaded, 50),
    Math.max(...loaded),
  ];
  return (
    `\nCode Mode fair share (trivial execute of a light principal, ${hogs} hog principals at cpuMs ${cpuMs}, maxWorkers ${maxWorkers}, ${maxWorkers - 1} standard-lane threads)\n` +
    `  idle p50 ${i50.toFixed(2)} ms max ${iMax.toFixed(2)} ms | loaded p50 ${l50.toFixed(2)} ms max ${lMax.toFixed(2)} ms ` +
    `(${(lMax / cpuMs).toFixed(2)} CPU limits) | ratio p50 ${(l50 / i50).toFixed(2)}× max ${(lMax / iMax).toFixed(2)}×\n`
  );
}

console.log(await summary());
console.log(await fairShareSummary());

describe('fairness', () => {
  // The summary above is the measurement; vitest bench needs at least one bench to run the file.
  bench('fair queue bookkeeping: nothing queued', () => {});
});
