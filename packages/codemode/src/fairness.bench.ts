/**
 * Code Mode fairness: a trivial `execute` while CPU hogs from other principals run, as a ratio to
 * the same execute on an idle pool (goal: ≤ 2× with 16 hogs). The victim is measured in both lanes:
 * priority (a management caller) and standard (another restricted principal). Then fair share:
 * 24 hog principals looping at `cpuMs` 1500, more than the workers can take, and a light
 * principal's trivial execute (goal: it waits at most about one CPU limit, not for the turns of the
 * hogs queued before it), in the package's setting and with the daemon's defaults.
 */
import { bench, describe } from 'vitest';
import { CodeModeRunner, type CodeModeRunnerOptions } from './code-mode-runner.js';
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
  priority = false,
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
          priority,
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

interface FairShareSetting {
  readonly label: string;
  readonly runner: CodeModeRunnerOptions;
  /** The lane every caller is in (the daemon puts its local unix callers in the priority lane). */
  readonly priority: boolean;
  /** Measure only once every hog has run once (else from the moment the hogs are submitted). */
  readonly afterFirstRound: boolean;
}

interface FairShare {
  readonly idle: number[];
  readonly loaded: number[];
}

/** More CPU hogs than workers, each its own principal, and one light principal that has run before. */
async function fairShare(
  setting: FairShareSetting,
  hogs: number,
  cpuMs: number,
  runs: number,
): Promise<FairShare> {
  const runner = new CodeModeRunner(setting.runner);
  const light = { principal: 'light', priority: setting.priority };
  await trivialTimes(runner, light, 20); // warm the pool
  const idle = await trivialTimes(runner, light, runs);
  const ended = new Set<number>();
  const stop = startHogs(runner, hogs, cpuMs, (hog) => ended.add(hog), setting.priority);
  // Before every hog has run once, the hogs are callers without a history: the daemon's case, since
  // each local connection is a principal of its own.
  while (setting.afterFirstRound && ended.size < hogs)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const loaded: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Arrive at unrelated moments of the hogs' cycle.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 100)));
    loaded.push(...(await trivialTimes(runner, light, 1)));
  }
  await stop();
  await runner.close();
  return { idle, loaded };
}

/**
 * The scenario in two settings: the package's own (7 standard-lane threads, measured once
 * every hog ran) and the daemon's defaults (default pool, priority lane, measured from the start),
 * the light caller's p50 and max side by side, and the daemon's as ratios to the package's.
 */
async function fairShareSummary(): Promise<string> {
  const hogs = 24;
  const cpuMs = 1_500;
  const runs = 30;
  const settings: FairShareSetting[] = [
    {
      label: 'package setting',
      runner: { workers: 7, maxWorkers: 8 },
      priority: false,
      afterFirstRound: true,
    },
    { label: "daemon's defaults", runner: {}, priority: true, afterFirstRound: false },
  ];
  const results: Array<{ label: string; p50: number; max: number; idle: number }> = [];
  for (const setting of settings) {
    const { idle, loaded } = await fairShare(setting, hogs, cpuMs, runs);
    results.push({
      label: setting.label,
      p50: percentile(loaded, 50),
      max: Math.max(...loaded),
      idle: percentile(idle, 50),
    });
  }
  const rows = results.map(
    (r) =>
      `  ${r.label.padEnd(18)} idle p50 ${r.idle.toFixed(2)} ms | loaded p50 ${r.p50.toFixed(2)} ms max ${r.max.toFixed(2)} ms (${(r.max / cpuMs).toFixed(2)} CPU limits)`,
  );
  const [pkg, daemon] = results as [(typeof results)[0], (typeof results)[0]];
  return (
    `\nCode Mode fair share (trivial execute of a light principal that ran before, ${hogs} hog principals looping at cpuMs ${cpuMs})\n` +
    `${rows.join('\n')}\n` +
    `  daemon / package: p50 ${(daemon.p50 / pkg.p50).toFixed(2)}× max ${(daemon.max / pkg.max).toFixed(2)}×\n`
  );
}

console.log(await summary());
console.log(await fairShareSummary());

describe('fairness', () => {
  // The summary above is the measurement; vitest bench needs at least one bench to run the file.
  bench('fair queue bookkeeping: nothing queued', () => {});
});
