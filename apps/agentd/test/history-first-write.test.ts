/**
 * A run killed (`kill -9`) in the middle of its very first event write, in the same batch as its
 * first record: after restart it is `lost`, not gone (its record went to disk before its events).
 * The store runs in a child process armed with the kill-mid-write hook (src/history/kill-mid-write.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../src/history/run-store-file.js';

const MARKER = 'first-write-marker-0123456789';
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The child: a live record and an event with the marker recorded in one tick, then a flush. */
const CHILD = `
const { openRunStore } = await import(process.argv[1]);
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const store = await openRunStore({ dir: process.argv[2], retention: {}, logger: silent });
store.recordRun({ handle: 'sa_first', runId: 'run_first', agent: 'a', state: 'running', startedAt: new Date().toISOString() });
store.appendEvent('run_first', { type: 'message', text: ${JSON.stringify(MARKER)} });
await store.flush();
`;

describe('kill -9 during a run’s first write', () => {
  it('leaves the run lost with its record, not an orphan log removed at start', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'agentd-first-write-')), 'state');
    dirs.push(dir);
    const storeModule = new URL('../dist/history/run-store-file.js', import.meta.url).href;
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, storeModule, dir], {
      env: { ...process.env, TEST_AGENTD_KILL_MID_WRITE: MARKER },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_c, s) => resolve(s)),
    );
    expect(signal).toBe('SIGKILL');
    const store = await openRunStore({ dir, retention: {}, logger: silent });
    try {
      const [lost] = await store.markLiveRunsLost();
      expect(lost).toMatchObject({ runId: 'run_first', state: 'lost' });
      expect(await store.get('sa_first')).toMatchObject({ state: 'lost' });
      // The torn event is dropped; nothing else was written.
      expect((await store.events('run_first')).events).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
