/** FairQueue: round-robin across principals, per-principal caps and queue bounds, the priority lane. */
import { describe, expect, it } from 'vitest';
import { FairQueue, type Queued } from './fair-queue.js';

interface Item extends Queued {
  readonly name: string;
}

const item = (principal: string, name: string, priority = false): Item => ({ principal, name, priority });

function drain(queue: FairQueue<Item>, priority = false): string[] {
  const order: string[] = [];
  for (let next = queue.peek(priority); next !== undefined; next = queue.peek(priority)) {
    queue.start(next);
    order.push(next.name);
    queue.finish(next);
  }
  return order;
}

describe('FairQueue', () => {
  it('takes turns across principals instead of first come, first served', () => {
    const queue = new FairQueue<Item>({ maxRunningPerPrincipal: 10, maxQueuedPerPrincipal: 10 });
    for (const name of ['a1', 'a2', 'a3']) queue.admit(item('a', name));
    for (const name of ['b1', 'b2']) queue.admit(item('b', name));
    queue.admit(item('c', 'c1'));
    expect(drain(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(queue.size).toBe(0);
  });

  it('holds a principal at its running cap while others go ahead', () => {
    const queue = new FairQueue<Item>({ maxRunningPerPrincipal: 1, maxQueuedPerPrincipal: 10 });
    queue.admit(item('a', 'a1'));
    queue.admit(item('a', 'a2'));
    queue.admit(item('b', 'b1'));
    const first = queue.peek(false) as Item;
    queue.start(first);
    expect(first.name).toBe('a1');
    // a is at its cap: b goes next, then nobody until a1 finishes.
    const second = queue.peek(false) as Item;
    queue.start(second);
    expect(second.name).toBe('b1');
    expect(queue.peek(false)).toBeUndefined();
    queue.finish(first);
    expect(queue.peek(false)?.name).toBe('a2');
  });

  it('refuses past a principal’s queue bound, without touching others', () => {
    const queue = new FairQueue<Item>({ maxRunningPerPrincipal: 1, maxQueuedPerPrincipal: 2 });
    expect(queue.admit(item('a', 'a1'))).toBe(true);
    expect(queue.admit(item('a', 'a2'))).toBe(true);
    expect(queue.admit(item('a', 'a3'))).toBe(false);
    expect(queue.admit(item('b', 'b1'))).toBe(true);
    expect(queue.size).toBe(3);
  });

  it('keeps the lanes apart: priority items are only offered to the priority lane', () => {
    const queue = new FairQueue<Item>({ maxRunningPerPrincipal: 10, maxQueuedPerPrincipal: 10 });
    queue.admit(item('hog', 'h1'));
    queue.admit(item('op', 'p1', true));
    expect(queue.peek(true)?.name).toBe('p1');
    expect(queue.peek(false)?.name).toBe('h1');
    const aborted = item('hog', 'h2');
    queue.admit(aborted);
    expect(queue.remove(aborted)).toBe(true);
    expect(drain(queue, false)).toEqual(['h1']);
  });
});
