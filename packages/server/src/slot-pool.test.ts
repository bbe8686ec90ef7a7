/** SlotPool: bound, FIFO hand-over (also past the queue compaction point), withdraw, idle. */
import { describe, expect, it } from 'vitest';
import { SlotPool } from './slot-pool.js';

describe('SlotPool', () => {
  it('hands freed slots to waiters in arrival order, across thousands of waiters', async () => {
    const pool = new SlotPool(2);
    expect(pool.tryAcquire()).toBe(true);
    expect(pool.tryAcquire()).toBe(true);
    expect(pool.tryAcquire()).toBe(false);
    const granted: number[] = [];
    for (let i = 0; i < 3_000; i += 1) pool.enqueue(() => granted.push(i));
    expect(pool.pending).toBe(3_002);
    for (let i = 0; i < 3_000; i += 1) pool.release();
    expect(granted).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
    expect(pool.pending).toBe(2);
    const idle = pool.idle();
    pool.release();
    pool.release();
    await idle;
    expect(pool.pending).toBe(0);
    expect(pool.tryAcquire()).toBe(true);
  });

  it('withdraws a waiter that gave up; idle accounts for it', async () => {
    const pool = new SlotPool(1);
    pool.tryAcquire();
    const order: string[] = [];
    const a = () => order.push('a');
    const b = () => order.push('b');
    pool.enqueue(a);
    pool.enqueue(b);
    expect(pool.withdraw(a)).toBe(true);
    expect(pool.withdraw(a)).toBe(false);
    pool.release();
    expect(order).toEqual(['b']);
    const idle = pool.idle();
    pool.release();
    await idle;
  });
});
