#!/usr/bin/env node
/**
 * CLI: `node dist/run.js [--quick] [--reps N] [--only substr] [--load-calls N] [--json file] [--profile dir [--profile-impl agentd,sdk-v1,…]]`;
 * runs every case interleaved and prints the report.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type BenchCase, CASES } from './cases.js';
import { type Bounds, type CaseRep, coldStart, measureCase } from './measure-case.js';
import { renderReport } from './report.js';
import { type CaseSummary, summarise } from './summary.js';

const { values } = parseArgs({
  // `pnpm … bench -- --quick` may hand the separator through; it means nothing here.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    reps: { type: 'string' },
    'load-calls': { type: 'string' },
    only: { type: 'string' },
    json: { type: 'string' },
    profile: { type: 'string' },
    'profile-impl': { type: 'string', default: 'agentd' },
  },
});

const QUICK: Bounds = { warmupCalls: 20, warmupMs: 200, loadCalls: 100, loadMs: 500, listSamples: 1 };
const FULL: Bounds = {
  warmupCalls: 3_000,
  warmupMs: 1_500,
  loadCalls: 20_000,
  loadMs: 3_000,
  listSamples: 10,
};
// 20,000 calls is under 0.2 s at 32 in flight for the fastest servers: a precise comparison of two
// of them (e.g. the eras) asks for longer phases; the time bound still caps the slow ones.
const loadCalls = values['load-calls'] === undefined ? undefined : Number(values['load-calls']);
if (loadCalls !== undefined && !(Number.isInteger(loadCalls) && loadCalls > 0)) {
  throw new Error(`--load-calls wants a positive integer, not ${values['load-calls']}`);
}
const bounds: Bounds = {
  ...(values.quick ? QUICK : FULL),
  ...(loadCalls === undefined ? {} : { loadCalls }),
};
const reps = Number(values.reps ?? (values.quick ? 1 : 5));
const extraColdPerRep = values.quick ? 0 : 1;
const selected = CASES.filter((c) => values.only === undefined || c.id.includes(values.only));

const log = (line: string) => process.stderr.write(`${line}\n`);
const dir = await mkdtemp(join(tmpdir(), 'agentd-bench-'));
let socketCounter = 0;
const spawnOptions = (benchCase: BenchCase) => ({
  socketPath: join(dir, `s${++socketCounter}.sock`),
  // By default only our servers are profiled: the profile is for finding our hot paths.
  profileDir: values['profile-impl'].split(',').includes(benchCase.impl) ? values.profile : undefined,
});

/** Only the v2 SDK and Bun may be skipped (where they do not run); anything else failing fails the run. */
function skippable(benchCase: BenchCase): boolean {
  return benchCase.impl === 'sdk-v2' || benchCase.impl === 'agentd-bun';
}

async function main(): Promise<number> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const skipped: { id: string; reason: string }[] = [];
  const results = new Map<string, CaseRep[]>(selected.map((c) => [c.id, []]));
  const cold = new Map<string, number[]>(selected.map((c) => [c.id, []]));
  let runnable: BenchCase[] = [...selected];
  log(
    `agentd bench: ${selected.length} cases × ${reps} reps${values.quick ? ' (quick)' : ''}, Node ${process.version}`,
  );
  // Interleaved: every case once per repetition (A B C … A B C …), so drift hits all alike.
  for (let rep = 0; rep < reps; rep++) {
    for (const benchCase of runnable) {
      let result: CaseRep;
      try {
        result = await measureCase(benchCase, spawnOptions(benchCase), bounds);
      } catch (error) {
        if (rep > 0 || !skippable(benchCase)) throw error;
        skipped.push({ id: benchCase.id, reason: (error as Error).message.split('\n')[0] ?? 'failed' });
        log(`skipping ${benchCase.id}: ${(error as Error).message}`);
        continue;
      }
      results.get(benchCase.id)?.push(result);
      const c = result.concurrent;
      log(
        `rep ${rep + 1}/${reps} ${benchCase.id}: cold ${result.coldMs.toFixed(0)} ms` +
          (c === undefined ? '' : `, 32 in flight ${c.callsPerSecond.toFixed(0)} calls/s`),
      );
    }
    runnable = runnable.filter((c) => !skipped.some((s) => s.id === c.id));
    for (let k = 0; k < extraColdPerRep; k++) {
      for (const benchCase of runnable)
        cold.get(benchCase.id)?.push(await coldStart(benchCase, spawnOptions(benchCase)));
    }
  }
  const summaries: CaseSummary[] = runnable.map((c) =>
    summarise(c.id, results.get(c.id) ?? [], cold.get(c.id) ?? []),
  );
  const { text, checks } = renderReport(summaries, skipped);
  const verified = summaries.reduce((sum, s) => sum + s.verifiedAnswers, 0);
  process.stdout.write(
    `${text}\n\nNode ${process.version}, ${reps} interleaved repetitions, ${verified.toLocaleString('en-US')} answers verified, ` +
      `${((performance.now() - started) / 1000).toFixed(0)} s; ${cpus().length} CPUs, load average ` +
      `${loadBefore.toFixed(1)} at the start and ${(loadavg()[0] ?? Number.NaN).toFixed(1)} at the end.\n`,
  );
  if (values.json !== undefined) {
    const out = {
      node: process.version,
      quick: values.quick,
      reps,
      bounds,
      cases: summaries,
      skipped,
      checks,
    };
    await writeFile(values.json, `${JSON.stringify(out, null, 2)}\n`);
  }
  return 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  log(`bench failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
