import { describe, expect, it } from 'vitest';
import { Drain } from './drain.js';

describe('Drain', () => {
  it('stops once: later calls join the first drain and keep its deadline', async () => {
    const calls: [number, string][] = [];
    let finish!: () => void;
    const drain = new Drain((deadlineMs, reason) => {
      calls.push([deadlineMs, reason]);
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    expect(drain.begun).toBe(false);
    expect(drain.state).toBeUndefined();
    const first = drain.begin(5_000, 'SIGTERM');
    const second = drain.begin(0, 'drain operation');
    expect(second).toBe(first);
    expect(calls).toEqual([[5_000, 'SIGTERM']]);
    expect(drain.begun).toBe(true);
    expect(drain.state).toMatchObject({ deadlineMs: 5_000, startedAt: expect.any(String) });
    finish();
    await expect(first).resolves.toBeUndefined();
  });
});
