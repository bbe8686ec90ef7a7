/**
 * Benchmark: 10,000 stored runs listed by page, beside the floor of reading the same count of
 * small files (one file per run, the naive store). Run with `pnpm --filter @agentd/agentd bench`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, bench, describe } from 'vitest';
import type { RunStore, StoredRecord } from './history-types.js';
import { openRunStore } from './run-store-file.js';

const RUNS = 10_000;
const PAGE = 200;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const work = mkdtempSync(join(tmpdir(), 'agentd-history-bench-'));
const dir = join(work, 'state');
const files = join(work, 'files');
const base = Date.now() - 24 * 60 * 60 * 1000;

function record(n: number): StoredRecord {
  return {
    handle: `sa_${n.toString(36).padStart(22, '0')}`,
    runId: `run_${(base + n).toString(36)}_${n.toString(16).padStart(12, '0')}`,
    agent: ['claude', 'codex', 'example'][n % 3] as string,
    mode: 'protocol',
    state: n % 10 === 0 ? 'failed' : 'succeeded',
    terminal: true,
    startedAt: new Date(base + n * 1000).toISOString(),
    endedAt: new Date(base + n * 1000 + 500).toISOString(),
    turns: 1,
    owner: `client-${n % 4}`,
    result: { text: `the answer of run ${n}` },
    output: `the answer of run ${n}`,
  };
}

const seed = await openRunStore({ dir, logger: silent });
mkdirSync(files);
for (let n = 0; n < RUNS; n++) {
  seed.recordRun(record(n));
  writeFileSync(join(files, `${n}.json`), JSON.stringify(record(n)));
}
await seed.close();
let store: RunStore = await openRunStore({ dir, logger: silent });

async function listAll(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    count += page.runs.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  if (count !== RUNS) throw new Error(`listed ${count}`);
  return count;
}

afterAll(async () => {
  await store.close();
  rmSync(work, { recursive: true, force: true });
});

describe(`${RUNS} runs, ${PAGE} per page`, () => {
  bench('run store: list every page (store open)', async () => {
    await listAll();
  });
  bench('run store: open (read the index) and list every page', async () => {
    await store.close();
    store = await openRunStore({ dir, logger: silent });
    await listAll();
  });
  bench('floor: read and parse one small file per run', () => {
    let count = 0;
    for (const name of readdirSync(files)) {
      JSON.parse(readFileSync(join(files, name), 'utf8'));
      count++;
    }
    if (count !== RUNS) throw new Error(`read ${count}`);
  });
});
