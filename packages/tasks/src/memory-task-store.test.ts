/** MemoryTaskStore: owner binding, terminal immutability, paging, purge after expiry, per-owner limit. */
import { describe, expect, it, vi } from 'vitest';
import { MemoryTaskStore } from './memory-task-store.js';

const base = { era: 'modern', method: 'tools/call', ttlMs: 1_000 } as const;

describe('MemoryTaskStore', () => {
  it('works where setInterval returns a plain number (workerd, web timers)', async () => {
    const spy = vi.spyOn(globalThis, 'setInterval').mockImplementation((() => 7) as never);
    try {
      const store = new MemoryTaskStore();
      const task = await store.create({ ...base, owner: 'a' });
      expect(await store.get(task.taskId, 'a')).toMatchObject({ status: 'working' });
    } finally {
      spy.mockRestore();
    }
  });

  it('binds every task to its owner and never changes a terminal task', async () => {
    let now = 1_000;
    const store = new MemoryTaskStore({ now: () => now });
    const task = await store.create({ ...base, owner: 'a' });
    expect(task).toMatchObject({ status: 'working', createdAt: 1_000, expiresAt: 2_000 });
    expect(await store.get(task.taskId, 'b')).toBeUndefined();
    expect(await store.update(task.taskId, 'b', { status: 'cancelled' })).toBeUndefined();
    now = 1_500;
    const done = await store.update(task.taskId, 'a', { status: 'completed', result: { content: [] } });
    expect(done).toMatchObject({ status: 'completed', lastUpdatedAt: 1_500, result: { content: [] } });
    expect(await store.update(task.taskId, 'a', { status: 'failed' })).toEqual(done);
    await store.delete(task.taskId, 'b');
    expect(await store.get(task.taskId, 'a')).toEqual(done);
    await store.close();
  });

  it('pages an owner’s tasks in creation order and purges expired ones after the retention', async () => {
    let now = 0;
    const store = new MemoryTaskStore({ now: () => now, retainExpiredMs: 100 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await store.create({ ...base, owner: 'a' })).taskId);
    await store.create({ ...base, owner: 'b', ttlMs: null });
    const first = await store.list('a', { limit: 2 });
    expect(first.tasks.map((t) => t.taskId)).toEqual(ids.slice(0, 2));
    const rest = await store.list('a', { limit: 10, after: first.nextAfter as string });
    expect(rest.tasks.map((t) => t.taskId)).toEqual(ids.slice(2));
    expect(rest.nextAfter).toBeUndefined();
    now = 1_050;
    store.sweep();
    expect(store.size).toBe(6);
    now = 1_100;
    store.sweep();
    expect(store.size).toBe(1);
    await store.close();
  });

  it('holds at most maxTasksPerOwner: the oldest terminal task makes room, else a task_limit LocalError', async () => {
    const store = new MemoryTaskStore({ maxTasksPerOwner: 2 });
    const a = await store.create({ ...base, owner: 'a' });
    await store.create({ ...base, owner: 'a' });
    await expect(store.create({ ...base, owner: 'a' })).rejects.toMatchObject({ code: 'task_limit' });
    await store.update(a.taskId, 'a', { status: 'cancelled' });
    await store.create({ ...base, owner: 'a' });
    expect(await store.get(a.taskId, 'a')).toBeUndefined();
    await store.close();
  });
});
