/** The fleet's run history against a real redis-server: two replicas' stores, one Redis. */

import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { RedisConnection } from '@agentd/redis';
import { LocalError, silentLogger } from '@agentd/rpc-frame';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredRecord } from '../history/history-types.js';
import { captureLogger } from '../history/test-support/capture-logger.js';
import { clusterKeys } from './cluster-keys.js';
import { type FleetRunStore, type FleetRunStoreOptions, openFleetRunStore } from './fleet-run-store.js';

const runnable = clusterBinariesAvailable('agentd fleet history tests', ['redis-server']);
let redis: RedisServer;
const links: RedisConnection[] = [];
const stores: FleetRunStore[] = [];
let prefixes = 0;

async function link(): Promise<RedisConnection> {
  const c = await RedisConnection.connect({ url: redis.url, logger: silentLogger });
  links.push(c);
  return c;
}

/** A replica's store under its own key prefix per test (tests do not see each other's runs). */
async function replica(
  prefix: string,
  instanceId: string,
  extra: Partial<FleetRunStoreOptions> = {},
): Promise<FleetRunStore> {
  const store = await openFleetRunStore({
    redis: await link(),
    keys: clusterKeys(prefix),
    instanceId,
    leaseTtlMs: 60_000,
    logger: silentLogger,
    ...extra,
  });
  stores.push(store);
  return store;
}

const BASE = Date.parse('2026-01-01T00:00:00Z');

function record(n: number, extra: Partial<StoredRecord> = {}): StoredRecord {
  const ended = n % 2 === 0 ? 'succeeded' : 'failed';
  return {
    handle: `h_${n}`,
    runId: `run_${String(n).padStart(3, '0')}`,
    state: ended,
    terminal: true,
    startedAt: new Date(BASE + n * 60_000).toISOString(),
    endedAt: new Date(BASE + n * 60_000 + 1000).toISOString(),
    agent: n % 2 === 0 ? 'even' : 'odd',
    owner: n % 3 === 0 ? 'alice' : 'bob',
    instruction: n === 7 ? 'find the Needle' : `task ${n}`,
    output: 'x'.repeat(100),
    ...extra,
  };
}

/** A run still going: no end, not terminal. */
function live(n: number, extra: Partial<StoredRecord> = {}): StoredRecord {
  const { endedAt: _endedAt, ...rest } = record(n, { state: 'running', terminal: false, ...extra });
  return rest as StoredRecord;
}

describe.runIf(runnable)('FleetRunStore on redis-server', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await Promise.allSettled(links.map((l) => l.close()));
    await redis?.close();
  });

  it('one replica writes, another reads: records, whole logs, pages newest first, filters', async () => {
    const prefix = `t${prefixes++}:`;
    const a = await replica(prefix, 'a');
    const b = await replica(prefix, 'b');
    for (let n = 1; n <= 12; n++) a.recordRun(record(n));
    for (let i = 1; i <= 2500; i++) a.appendEvent('run_003', { type: 'message', text: `line ${i}` });
    await a.flush();

    const got = await b.get('h_3');
    expect(got).toMatchObject({ runId: 'run_003', state: 'failed', output: 'x'.repeat(100), instance: 'a' });
    expect(await b.get('run_003')).toEqual(got);
    expect(await b.get('nope')).toBeUndefined();
    const seqs: number[] = [];
    let after = 0;
    for (;;) {
      const page = await b.events('run_003', { after, limit: 1000 });
      seqs.push(...page.events.map((e) => e.seq));
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(seqs).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    expect((await b.events('run_003', { after: 2499 })).events[0]?.event).toEqual({
      type: 'message',
      text: 'line 2500',
    });

    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await b.list({ limit: 5, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.runs.every((r) => r.output === undefined)).toBe(true);
      ids.push(...page.runs.map((r) => r.runId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `run_${String(12 - i).padStart(3, '0')}`));
    expect((await b.list({ agent: 'odd', owner: 'alice' })).runs.map((r) => r.runId)).toEqual([
      'run_009',
      'run_003',
    ]);
    expect((await b.list({ text: 'needle' })).runs.map((r) => r.runId)).toEqual(['run_007']);
    expect((await b.list({ since: new Date(BASE + 11 * 60_000) })).runs).toHaveLength(2);
    expect((await b.list({ state: 'succeeded', limit: 6 })).nextCursor).toBeUndefined();
    await expect(b.list({ cursor: 'nonsense' })).rejects.toThrow(LocalError);
  });

  it("a dead replica's live runs end lost with their events; its late writes are refused", async () => {
    const prefix = `t${prefixes++}:`;
    const keys = clusterKeys(prefix);
    const survivor = await replica(prefix, 'survivor');
    const dead = await replica(prefix, 'dead');
    dead.recordRun(live(1));
    dead.appendEvent('run_001', { type: 'message', text: 'before' });
    dead.recordRun(record(2));
    await dead.flush();
    // The dead one never held a lease in this test: it is dead from the start.
    const c = await link();
    await c.command(['SET', keys.lease('survivor'), 'x', 'PX', 60_000]);
    expect(await survivor.sweepDead()).toBe(1);
    expect(await survivor.sweepDead()).toBe(0);
    expect(await survivor.get('h_1')).toMatchObject({
      state: 'lost',
      terminal: true,
      error: { code: 'lost' },
    });
    expect(await survivor.get('h_2')).toMatchObject({ state: 'succeeded' });
    // The zombie writes on: neither its record nor its events land.
    dead.recordRun(live(1));
    dead.appendEvent('run_001', { type: 'message', text: 'after' });
    await dead.flush();
    expect(await survivor.get('run_001')).toMatchObject({ state: 'lost' });
    expect((await survivor.events('run_001')).events.map((e) => e.event.text)).toEqual(['before']);
    expect((await survivor.list({ state: 'lost' })).runs.map((r) => r.runId)).toEqual(['run_001']);
  });

  it('a restart under the same instance id marks what that instance left live lost', async () => {
    const prefix = `t${prefixes++}:`;
    const before = await replica(prefix, 'fixed');
    before.recordRun(live(1));
    await before.close();
    const after = await replica(prefix, 'fixed');
    const lost = await after.markLiveRunsLost();
    expect(lost.map((r) => r.runId)).toEqual(['run_001']);
    expect(await after.get('h_1')).toMatchObject({ state: 'lost' });
  });

  it('retention: the oldest finished runs go first, record and log; a live run stays', async () => {
    const prefix = `t${prefixes++}:`;
    const a = await replica(prefix, 'a', { retention: { maxRuns: 3 } });
    a.recordRun(live(0));
    for (let n = 1; n <= 6; n++) {
      a.recordRun(record(n));
      a.appendEvent(record(n).runId, { type: 'message', text: `run ${n}` });
    }
    await a.flush();
    const listed = await vi.waitFor(async () => {
      const ids = (await a.list()).runs.map((r) => r.runId);
      expect(ids).toHaveLength(4);
      return ids;
    });
    expect(listed).toEqual(['run_006', 'run_005', 'run_004', 'run_000']);
    expect(await a.get('h_1')).toBeUndefined();
    expect((await a.events('run_001')).events).toEqual([]);
    // Age: a second replica's hourly pass (here: its open) removes runs that ended too long ago.
    const b = await replica(prefix, 'b', { retention: { maxRuns: 3, maxAgeDays: 1 } });
    expect((await b.list()).runs.map((r) => r.runId)).toEqual(['run_000']);
    // Bytes went with them: what is left is the live run's record alone.
    const c = await link();
    const bytes = Number(await c.command(['GET', clusterKeys(prefix).history.bytes]));
    expect(bytes).toBe(
      Number(await c.command(['HGET', clusterKeys(prefix).history.run('run_000'), 'bytes'])),
    );
  });

  it('Redis away mid-run: the store says so once, keeps going, and writes the last record when it is back', async () => {
    const prefix = `t${prefixes++}:`;
    const logger = captureLogger();
    const a = await replica(prefix, 'a', { logger });
    a.recordRun(live(1));
    await a.flush();
    await redis.stop();
    try {
      a.appendEvent('run_001', { type: 'message', text: 'lost while away' });
      a.recordRun(live(1, { turns: 2 }));
      await a.flush();
      a.recordRun(record(1));
      await a.flush();
      const down = logger.lines.filter((l) => l.msg.startsWith('history is not being kept'));
      expect(down).toHaveLength(1);
      expect(down[0]?.level).toBe('error');
      expect(a.info().keeping).toBe(false);
    } finally {
      await redis.start();
    }
    // Redis came back empty (no persistence here): the run's last record is written again.
    await vi.waitFor(
      async () => {
        await a.flush();
        expect(await a.get('h_1')).toMatchObject({ state: 'failed', terminal: true });
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(logger.lines.some((l) => l.msg === 'history is being kept again')).toBe(true);
    expect(a.info().keeping).toBe(true);
  }, 60_000);
});
