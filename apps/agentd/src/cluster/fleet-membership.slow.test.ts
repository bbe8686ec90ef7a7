/** Leases, the lost sweep and final records against a real redis-server. */

import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { RedisConnection, RedisTaskStore } from '@agentd/redis';
import { silentLogger } from '@agentd/rpc-frame';
import type { TaskRecord } from '@agentd/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeys } from './cluster-keys.js';

import { FleetMembership } from './fleet-membership.js';
import { SharedRunStore } from './run-store.js';
import type { SharedStatus } from './shared-run.js';

const runnable = clusterBinariesAvailable('agentd cluster store tests', ['redis-server']);
const keys = clusterKeys('test:');
let redis: RedisServer;
const links: RedisConnection[] = [];

async function client(): Promise<RedisConnection> {
  const link = await RedisConnection.connect({ url: redis.url, prefix: 'test:' });
  links.push(link);
  return link;
}

/** Handles each member's sweep reported lost (its cue to notify). */
const lostChanges: string[] = [];

function member(
  c: RedisConnection,
  id: string,
  leaseTtlMs: number,
  extra: Partial<ConstructorParameters<typeof FleetMembership>[0]> = {},
): FleetMembership {
  return new FleetMembership({
    ...extra,
    onLost: (change) => lostChanges.push(change.handle),
    redis: c,
    keys,
    store: new SharedRunStore(c, keys, 60_000),
    info: { id, pid: 1, host: 'h', version: 'v', startedAt: '', listeners: [] },
    leaseTtlMs,
    logger: silentLogger,
  });
}

function run(handle: string, instance: string, state = 'running'): SharedStatus {
  const terminal = state !== 'running';
  return { handle, runId: `run_${handle}`, state, terminal, warm: false, instance, busy: false };
}

describe.runIf(runnable)('FleetMembership and SharedRunStore on redis-server', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.allSettled(links.map((l) => l.close()));
    await redis?.close();
  });

  it('a terminal record is final: later writes change nothing', async () => {
    const c = await client();
    const store = new SharedRunStore(c, keys, 60_000);
    expect(await store.write(run('h1', 'x'))).toBe(true);
    expect(await c.command(['SISMEMBER', keys.live('x'), 'h1'])).toBe(1);
    expect(await store.write(run('h1', 'x', 'succeeded'))).toBe(true);
    expect(await c.command(['SISMEMBER', keys.live('x'), 'h1'])).toBe(0);
    expect(await store.write(run('h1', 'x', 'running'))).toBe(false);
    expect(await store.get('h1')).toMatchObject({ state: 'succeeded' });
    expect(await store.getByRunId('run_h1')).toMatchObject({ handle: 'h1' });
    expect((await c.command(['PTTL', keys.run('h1')])) as number).toBeGreaterThan(0);
  });

  it('marks the unfinished runs of a dead instance lost exactly once, however many survivors sweep', async () => {
    const [dc, s1c, s2c, s3c] = await Promise.all([client(), client(), client(), client()]);
    const dead = member(dc, 'dead', 1000);
    await dead.renew();
    const store = new SharedRunStore(dc, keys, 60_000);
    await store.write(run('d1', 'dead'));
    await store.write(run('d2', 'dead'));
    await store.write(run('d3', 'dead', 'succeeded'));
    const survivors = [member(s1c, 's1', 1000), member(s2c, 's2', 1000), member(s3c, 's3', 1000)];
    await Promise.all(survivors.map((s) => s.renew()));
    // Alive: nothing to sweep.
    expect(await Promise.all(survivors.map((s) => s.sweep()))).toEqual([0, 0, 0]);
    await dc.command(['DEL', keys.lease('dead')]); // the lease lapses (as after the TTL with no heartbeat)
    const marked = await Promise.all(survivors.map((s) => s.sweep()));
    expect(marked.reduce((a, b) => a + b, 0)).toBe(2);
    expect(await store.get('d1')).toMatchObject({ state: 'lost', terminal: true, error: { code: 'lost' } });
    expect(await store.get('d3')).toMatchObject({ state: 'succeeded' });
    expect(lostChanges.sort()).toEqual(['d1', 'd2']);
    const fleet = await survivors[0]?.fleet();
    expect(fleet?.map((i) => [i.id, i.alive, i.self])).toEqual([
      ['s1', true, true],
      ['s2', true, false],
      ['s3', true, false],
    ]);
    // The dead instance comes back (a long stall): its late writes cannot undo "lost".
    expect(await store.write(run('d1', 'dead', 'succeeded'))).toBe(false);
    await dead.renew();
    expect((await survivors[0]?.fleet())?.map((i) => i.id)).toContain('dead');
  });

  it("fails a lost run's spawn task once, and leaves a task that already ended as it was", async () => {
    const [dc, s1c, s2c] = await Promise.all([client(), client(), client()]);
    const tasks = await RedisTaskStore.create(dc);
    const owner = 'http:e2e';
    const init = { owner, era: 'modern', method: 'tools/call', ttlMs: 60_000 } as const;
    const [orphan, ended] = await Promise.all([tasks.create(init), tasks.create(init)]);
    await tasks.update(ended.taskId, owner, { status: 'completed', result: { content: [] } });
    const dead = member(dc, 'gone', 1000);
    await dead.renew();
    const store = new SharedRunStore(dc, keys, 60_000);
    await store.write(run('t1', 'gone'));
    await store.write(run('t2', 'gone'));
    await store.bindTask('t1', { taskId: orphan.taskId, owner });
    await store.bindTask('t2', { taskId: ended.taskId, owner });
    const failed: TaskRecord[] = [];
    const survivors = [s1c, s2c].map((c, i) =>
      member(c, `t${i}`, 1000, { tasks, onTaskFailed: (record) => failed.push(record) }),
    );
    await Promise.all(survivors.map((s) => s.renew()));
    await dc.command(['DEL', keys.lease('gone')]);
    const marked = await Promise.all(survivors.map((s) => s.sweep()));
    expect(marked.reduce((a, b) => a + b, 0)).toBe(2);
    const got = await tasks.get(orphan.taskId, owner);
    expect(got).toMatchObject({
      status: 'failed',
      error: { code: -32603, data: { handle: 't1', state: 'lost' } },
    });
    expect(got?.statusMessage).toContain('instance gone stopped renewing its lease');
    expect(failed.map((r) => r.taskId)).toEqual([orphan.taskId]);
    expect(await tasks.get(ended.taskId, owner)).toMatchObject({ status: 'completed' });
    await tasks.close();
  });

  it('a sweeper that dies between failing the task and marking the run is finished by the next', async () => {
    const [dc, sc] = await Promise.all([client(), client()]);
    const tasks = await RedisTaskStore.create(dc);
    const owner = 'http:e2e';
    const task = await tasks.create({ owner, era: 'modern', method: 'tools/call', ttlMs: 60_000 });
    const store = new SharedRunStore(dc, keys, 60_000);
    const dead = member(dc, 'stalled', 1000);
    await dead.renew();
    await store.write(run('u1', 'stalled'));
    await store.bindTask('u1', { taskId: task.taskId, owner });
    // The first sweeper failed the task, then died before writing the run (its claim since expired).
    await tasks.update(task.taskId, owner, { status: 'failed', statusMessage: 'the run u1 was lost' });
    await dc.command(['DEL', keys.lease('stalled')]);
    const failed: TaskRecord[] = [];
    const survivor = member(sc, 'next', 1000, { tasks, onTaskFailed: (r) => failed.push(r) });
    await survivor.renew();
    expect(await survivor.sweep()).toBe(1);
    expect(await store.get('u1')).toMatchObject({ state: 'lost' });
    // The task was already terminal: kept as the first sweeper left it, not reported again.
    expect(await tasks.get(task.taskId, owner)).toMatchObject({
      status: 'failed',
      statusMessage: 'the run u1 was lost',
    });
    expect(failed).toEqual([]);
    await tasks.close();
  });
});
