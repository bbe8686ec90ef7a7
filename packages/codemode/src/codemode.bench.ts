/** Code Mode overhead: fresh-sandbox executes, host-call cost and the `tools/list` footprint. */
import { bench, describe } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import type { ExecuteRequest } from './execute-types.js';
import { searchOperations } from './search-operations.js';
import { classicListing, syntheticCatalogue } from './test-support/synthetic-catalogue.js';
import { EXECUTE_TOOL, SEARCH_TOOL } from './tool-definitions.js';

const catalogue = syntheticCatalogue();
// Idle workers are unref'd, so the pool does not keep the bench process alive.
const runner = new CodeModeRunner({ workers: 2 });
const echo = async (_kind: string, _id: string, args: unknown) => args;

function request(code: string): ExecuteRequest {
  return { code, namespace: 'agentd', operations: catalogue, call: echo };
}

const chain = (calls: number) =>
  request(
    `let n = 0; for (let i = 0; i < ${calls}; i++) n += (await agentd.server.get({ id: 's' + i })).id.length; return n;`,
  );
const TRIVIAL = request('return 1 + 2;');
const CHAIN_10 = chain(10);
const CHAIN_100 = chain(100);

async function mustSucceed(req: ExecuteRequest): Promise<void> {
  const outcome = await runner.execute(req);
  if (!outcome.ok) throw new Error(outcome.error.message);
}

function eight(req: ExecuteRequest): Promise<void> {
  return Promise.all(Array.from({ length: 8 }, () => mustSucceed(req))).then(() => undefined);
}

/** The same calls made directly on the main thread (with the JSON round trip): the reference. */
async function directChain(calls: number): Promise<void> {
  let n = 0;
  for (let i = 0; i < calls; i++) {
    const value = (await echo('query', 'server.get', JSON.parse(JSON.stringify({ id: `s${i}` })))) as {
      id: string;
    };
    n += JSON.parse(JSON.stringify(value)).id.length;
  }
  if (n < 0) throw new Error('unreachable');
}

/** CPU time (all threads of this process, so workers included) per run: robust to a busy machine. */
async function cpuPerRun(fn: () => Promise<unknown>, runs: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / runs;
}

async function p50(fn: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/**
 * The headline numbers, measured before the benches (vitest bench runs no hooks): p50s through the
 * pool, the per-call cost derived from the two chains, and both listings' sizes.
 */
async function summary(): Promise<string> {
  for (let i = 0; i < 30; i++) await mustSucceed(CHAIN_10);
  const codeBytes = Buffer.byteLength(JSON.stringify({ tools: [SEARCH_TOOL, EXECUTE_TOOL] }));
  const classicBytes = Buffer.byteLength(JSON.stringify(classicListing(catalogue)));
  const trivial = await p50(() => mustSucceed(TRIVIAL), 60);
  const ten = await p50(() => mustSucceed(CHAIN_10), 40);
  const hundred = await p50(() => mustSucceed(CHAIN_100), 20);
  const trivial8 = await p50(() => eight(TRIVIAL), 15);
  const hundred8 = await p50(() => eight(CHAIN_100), 8);
  const direct = await p50(() => directChain(100), 40);
  const perCallUs = ((hundred - ten) / 90) * 1000;
  const cpuTrivial = await cpuPerRun(() => mustSucceed(TRIVIAL), 60);
  const cpuTen = await cpuPerRun(() => mustSucceed(CHAIN_10), 30);
  const cpuHundred = await cpuPerRun(() => mustSucceed(CHAIN_100), 15);
  const cpuPerCallUs = ((cpuHundred - cpuTen) / 90) * 1000;
  const rows: [string, string, string][] = [
    ['execute p50, trivial body, fresh sandbox', `${trivial.toFixed(2)} ms`, 'target < 5 ms'],
    ['execute p50, 10-call chain', `${ten.toFixed(2)} ms`, ''],
    [
      'execute p50, 100-call chain',
      `${hundred.toFixed(2)} ms`,
      `direct main-thread chain: ${direct.toFixed(3)} ms`,
    ],
    ['per host call ((100-chain − 10-chain) / 90)', `${perCallUs.toFixed(0)} µs`, 'target < 150 µs'],
    ['CPU per execution, trivial body (all threads)', `${cpuTrivial.toFixed(2)} ms`, ''],
    ['CPU per host call (from the two chains)', `${cpuPerCallUs.toFixed(0)} µs`, ''],
    [
      '8 concurrent trivial bodies (batch p50)',
      `${trivial8.toFixed(2)} ms`,
      `${(trivial8 / 8).toFixed(2)} ms per execution`,
    ],
    [
      '8 concurrent 100-call chains (batch p50)',
      `${hundred8.toFixed(2)} ms`,
      `${(hundred8 / 8).toFixed(2)} ms per execution`,
    ],
    ['tools/list, classic (320 tools)', `${classicBytes} B ≈ ${Math.round(classicBytes / 4)} tokens`, ''],
    [
      'tools/list, code mode (2 tools)',
      `${codeBytes} B ≈ ${Math.round(codeBytes / 4)} tokens`,
      `${((codeBytes / classicBytes) * 100).toFixed(1)}% of classic (target ≤ 5%)`,
    ],
  ];
  return `\nCode Mode summary\n${rows.map((r) => `  ${r[0].padEnd(46)} ${r[1].padEnd(26)} ${r[2]}`).join('\n')}\n`;
}

console.log(await summary());

describe('execute through the pool, 1 at a time', () => {
  bench('reference: direct 10-call chain on the main thread', () => directChain(10));
  bench('trivial body in a fresh sandbox', () => mustSucceed(TRIVIAL), { warmupIterations: 20 });
  bench('10-call chain', () => mustSucceed(CHAIN_10), { warmupIterations: 10 });
  bench('100-call chain', () => mustSucceed(CHAIN_100), { warmupIterations: 5 });
});

describe('execute through the pool, 8 concurrent', () => {
  bench('8 × trivial body', () => eight(TRIVIAL), { warmupIterations: 5 });
  bench('8 × 10-call chain', () => eight(CHAIN_10), { warmupIterations: 5 });
  bench('8 × 100-call chain', () => eight(CHAIN_100), { warmupIterations: 2 });
});

describe('tools/list and search', () => {
  bench('reference: serialize the classic listing (320 tools)', () => {
    JSON.stringify(classicListing(catalogue));
  });
  bench('serialize the code mode listing (2 tools)', () => {
    JSON.stringify({ tools: [SEARCH_TOOL, EXECUTE_TOOL] });
  });
  bench('search "server" over 320 operations with signatures', () => {
    searchOperations(catalogue, { query: 'server' });
  });
});
