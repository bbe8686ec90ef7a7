/** One behavioural table over MemoryTaskStore (the reference) and RedisTaskStore; then what only a shared store does: watch across replicas. */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import type { TaskStatus } from '@agentd/lifecycle/tasks';
import { MemoryTaskStore } from '@agentd/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { RedisTaskStore } from './redis-task-store.js';
import { until } from './test-support/capture-writer.js';
import { type MakeStore, TASK_STORE_CASES } from './test-support/task-store-cases.js';

const haveRedis = clusterBinariesAvailable('@agentd/redis task store', ['redis-server']);
let redis: RedisServer | undefined;
beforeAll(async () => {
  if (haveRedis) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

const memory: MakeStore = async (options) => {
  let now = 1_000_000;
  const store = new MemoryTaskStore({ now: () => now, ...options });
  return {
    store,
    async elapse(ms) {
      now += ms;
      store.sweep();
    },
    close: () => store.close(),
  };
};

let run = 0;
/** Each case in its own key space, on its own connection, with Redis's own clock doing the expiry. */
const onRedis: MakeStore = async (options) => {
  const connection = await RedisConnection.connect({
    url: (redis as RedisServer).url,
    prefix: `case${++run}:`,
  });
  const store = await RedisTaskStore.create(connection, options);
  return {
    store,
    // sleep-is-the-point: Redis expires keys on its own clock, so the contract's time passes for real.
    elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    async close() {
      await store.close();
      await connection.close();
    },
  };
};

describe.each([
  ['MemoryTaskStore', memory, true],
  ['RedisTaskStore', onRedis, haveRedis],
] as const)('TaskStore conformance: %s', (_name, make, enabled) => {
  for (const [name, body] of TASK_STORE_CASES) it.runIf(enabled)(name, () => body(make));
});

describe.runIf(haveRedis)('RedisTaskStore across replicas', () => {
  it('a task written through one replica is read and watched through another', async () => {
    const url = (redis as RedisServer).url;
    const [ca, cb] = await Promise.all([
      RedisConnection.connect({ url, prefix: 'x:' }),
      RedisConnection.connect({ url, prefix: 'x:' }),
    ]);
    const [a, b] = await Promise.all([RedisTaskStore.create(ca), RedisTaskStore.create(cb)]);
    try {
      const task = await a.create({ owner: 'o', era: 'legacy', method: 'tools/call', ttlMs: null });
      expect(await b.get(task.taskId, 'o')).toEqual(task);
      const seen: TaskStatus[] = [];
      const unwatch = b.watch(task.taskId, (status) => seen.push(status));
      await a.update(task.taskId, 'o', { status: 'input_required', inputRequests: {} });
      await a.update(task.taskId, 'o', { status: 'cancelled' });
      await until(() => seen.length === 2, 'both changes at the other replica');
      expect(seen).toEqual(['input_required', 'cancelled']);
      unwatch();
      expect(await b.update(task.taskId, 'o', { status: 'completed', result: {} })).toMatchObject({
        status: 'cancelled',
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([ca.close(), cb.close()]);
    }
  });

  it('ignores a corrupt record (Redis is shared) and fails fast while Redis is down', async () => {
    const server = redis as RedisServer;
    const connection = await RedisConnection.connect({
      url: server.url,
      prefix: 'y:',
      maxReconnectDelayMs: 100,
    });
    const store = await RedisTaskStore.create(connection);
    try {
      await connection.command(['SET', 'y:tasks:task:bad', '{"not":"a task"']);
      expect(await store.get('bad', 'o')).toBeUndefined();
      await server.stop();
      await until(() => !connection.ready, 'the outage to be noticed');
      await expect(store.get('bad', 'o')).rejects.toThrow();
      await server.start();
      await until(() => connection.ready, 'the reconnect');
      // Nothing persisted across the restart (no RDB/AOF in the harness): the store still works.
      const task = await store.create({ owner: 'o', era: 'modern', method: 'tools/call', ttlMs: 1_000 });
      expect(await store.get(task.taskId, 'o')).toEqual(task);
    } finally {
      await store.close();
      await connection.close();
    }
  });
});
