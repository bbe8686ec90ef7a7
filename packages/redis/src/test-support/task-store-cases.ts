/**
 * The behaviour every TaskStore must have, as one table: run against MemoryTaskStore (the
 * reference) and RedisTaskStore by `task-store.slow.test.ts`.
 */
import type { TaskStore } from '@agentd/tasks';
import { expect } from 'vitest';

interface StoreUnderTest {
  readonly store: TaskStore;
  /** Lets at least `ms` pass for the store's clock and its expiry (purges what is due). */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

export type MakeStore = (options: {
  retainExpiredMs?: number;
  maxTasksPerOwner?: number;
}) => Promise<StoreUnderTest>;

const base = { era: 'modern', method: 'tools/call', ttlMs: 60_000 } as const;

export const TASK_STORE_CASES: [string, (make: MakeStore) => Promise<void>][] = [
  [
    'creates a working task bound to its owner; another owner finds, changes and deletes nothing',
    async (make) => {
      const { store, close } = await make({});
      const task = await store.create({ ...base, owner: 'a', pollIntervalMs: 500, creator: 'conn-1' });
      expect(task).toMatchObject({
        status: 'working',
        owner: 'a',
        era: 'modern',
        ttlMs: 60_000,
        creator: 'conn-1',
      });
      expect(task.expiresAt).toBe(task.createdAt + 60_000);
      expect(task.taskId).toMatch(/^[0-9a-f]{32}$/);
      expect(await store.get(task.taskId, 'a')).toEqual(task);
      expect(await store.get(task.taskId, 'b')).toBeUndefined();
      expect(await store.get('0'.repeat(32), 'a')).toBeUndefined();
      expect(await store.update(task.taskId, 'b', { status: 'cancelled' })).toBeUndefined();
      await store.delete(task.taskId, 'b');
      expect(await store.get(task.taskId, 'a')).toEqual(task);
      await store.delete(task.taskId, 'a');
      expect(await store.get(task.taskId, 'a')).toBeUndefined();
      await close();
    },
  ],
  [
    'applies changes with their fields, and never changes a terminal task',
    async (make) => {
      const { store, close } = await make({});
      const task = await store.create({ ...base, owner: 'a' });
      const asking = await store.update(task.taskId, 'a', {
        status: 'input_required',
        inputRequests: { name: { method: 'elicitation/create', params: {} } },
      });
      expect(asking?.inputRequests).toEqual({ name: { method: 'elicitation/create', params: {} } });
      const working = await store.update(task.taskId, 'a', { status: 'working' });
      expect(working?.inputRequests).toBeUndefined();
      const failed = await store.update(task.taskId, 'a', {
        status: 'failed',
        statusMessage: 'boom',
        error: { code: -32603, message: 'boom' },
        result: { content: [], isError: true },
      });
      expect(failed).toMatchObject({ status: 'failed', statusMessage: 'boom', error: { code: -32603 } });
      expect(await store.update(task.taskId, 'a', { status: 'completed', result: { content: [] } })).toEqual(
        failed,
      );
      expect(await store.get(task.taskId, 'a')).toEqual(failed);
      await close();
    },
  ],
  [
    'concurrent terminal writes: exactly one wins and every writer sees the winner',
    async (make) => {
      const { store, close } = await make({});
      const task = await store.create({ ...base, owner: 'a' });
      const statuses = ['completed', 'failed', 'cancelled'] as const;
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          store.update(task.taskId, 'a', {
            status: statuses[i % 3] as (typeof statuses)[number],
            statusMessage: `w${i}`,
          }),
        ),
      );
      const final = await store.get(task.taskId, 'a');
      expect(new Set(results.map((r) => r?.statusMessage)).size).toBe(1);
      for (const r of results) expect(r).toEqual(final);
      await close();
    },
  ],
  [
    'lists an owner’s tasks in creation order, paged, filtered by era',
    async (make) => {
      const { store, close } = await make({});
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await store.create({ ...base, owner: 'a' })).taskId);
        await store.create({ ...base, owner: 'b' });
      }
      const legacy = await store.create({ ...base, era: 'legacy', owner: 'a' });
      const first = await store.list('a', { limit: 2, era: 'modern' });
      expect(first.tasks.map((t) => t.taskId)).toEqual(ids.slice(0, 2));
      expect(first.nextAfter).toBe(ids[1]);
      const rest = await store.list('a', { limit: 10, after: first.nextAfter as string, era: 'modern' });
      expect(rest.tasks.map((t) => t.taskId)).toEqual(ids.slice(2));
      expect(rest.nextAfter).toBeUndefined();
      // An update does not move a task.
      await store.update(ids[0] as string, 'a', { status: 'completed', result: {} });
      const all = await store.list('a', { limit: 10 });
      expect(all.tasks.map((t) => t.taskId)).toEqual([...ids, legacy.taskId]);
      expect((await store.list('a', { limit: 1, era: 'legacy' })).tasks.map((t) => t.taskId)).toEqual([
        legacy.taskId,
      ]);
      expect(await store.list('a', { limit: 10, after: 'f'.repeat(32) })).toEqual({ tasks: [] });
      await close();
    },
  ],
  [
    'keeps an expired task for the retention, then purges it; a task without ttl stays',
    async (make) => {
      const { store, elapse, close } = await make({ retainExpiredMs: 100 });
      const short = await store.create({ ...base, owner: 'a', ttlMs: 100 });
      const forever = await store.create({ ...base, owner: 'a', ttlMs: null });
      expect(forever.expiresAt).toBeUndefined();
      await elapse(120);
      expect(await store.get(short.taskId, 'a')).toMatchObject({ taskId: short.taskId });
      await elapse(150);
      expect(await store.get(short.taskId, 'a')).toBeUndefined();
      expect(await store.get(forever.taskId, 'a')).toEqual(forever);
      expect((await store.list('a', { limit: 10 })).tasks.map((t) => t.taskId)).toEqual([forever.taskId]);
      await close();
    },
  ],
  [
    'holds at most maxTasksPerOwner: the oldest terminal task makes room, else a task_limit LocalError',
    async (make) => {
      const { store, close } = await make({ maxTasksPerOwner: 2 });
      const a = await store.create({ ...base, owner: 'a' });
      const b = await store.create({ ...base, owner: 'a' });
      await store.create({ ...base, owner: 'other' });
      await expect(store.create({ ...base, owner: 'a' })).rejects.toMatchObject({ code: 'task_limit' });
      await store.update(b.taskId, 'a', { status: 'cancelled' });
      const c = await store.create({ ...base, owner: 'a' });
      expect(await store.get(b.taskId, 'a')).toBeUndefined();
      expect(await store.get(a.taskId, 'a')).toBeDefined();
      expect(await store.get(c.taskId, 'a')).toBeDefined();
      await close();
    },
  ],
];
