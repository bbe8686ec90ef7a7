/** FairQueue: fair share of CPU across principals, per-principal caps and queue bounds, the priority lane. */
import { describe, expect, it } from 'vitest';
import { FairQueue, type FairQueueOptions, type Queued } from './fair-queue.js';

interface Item extends Queued {
  readonly name: string;
  /** What its worker would report: the guest CPU ms it has used so far. */
  used: number;
}

const item = (principal: string, name: string, priority = false): Item => ({
  principal,
  name,
  priority,
  used: 0,
  cpuSoFar() {
    return this.used;
  },
});

/** A queue on a clock the test moves: `clock.ms` is now. */
function fairQueue(options: Partial<FairQueueOptions> = {}) {
  const clock = { ms: 0 };
  const queue = new FairQueue<Item>({
    maxRunningPerPrincipal: 10,
    maxQueuedPerPrincipal: 10,
    usageHalfLifeMs: 10_000,
    now: () => clock.ms,
    ...options,
  });
  return { queue, clock };
}

/** Starts the next item and ends it having used `cpuMs`. */
function runOne(queue: FairQueue<Item>, cpuMs: number): string {
  const next = queue.peek(false) as Item;
  queue.start(next);
  next.used = cpuMs;
  queue.finish(next);
  return next.name;
}

function drain(queue: FairQueue<Item>, priority = false): string[] {
  const order: string[] = [];
  for (let next = queue.peek(priority); next !== undefined; next = queue.peek(priority)) {
    queue.start(next);
    order.push(next.name);
    queue.finish(next);
  }
  return order;
}

/**
 * 24 looping CPU hogs (1500 ms each) on 8 workers, the scheduler simulated, and one trivial execute
 * of a light caller arriving at `lightArrives`. `freshHogs`: each hog loop comes back as a new
 * principal (a new connection per execute). Returns how many hog executions started between the
 * light caller's arrival and its start, and how long it waited.
 */
function lightAmongHogs(options: { lightArrives: number; lightRanBefore: boolean; freshHogs: boolean }) {
  const { queue, clock } = fairQueue({ maxRunningPerPrincipal: 4 });
  const cpuLimit = 1500;
  if (options.lightRanBefore) {
    // The light caller's earlier trivial executes: it has a history, of next to no CPU.
    queue.admit(item('light', 'light-before'));
    runOne(queue, 0);
  }
  const workers: Array<{ ends: number; item: Item } | undefined> = Array.from({ length: 8 }, () => undefined);
  let serial = 0;
  const hogItem = (i: number) =>
    item(options.freshHogs ? `hog-${i}#${serial}` : `hog-${i}`, `hog-${i}#${serial++}`);
  const hogOf = new Map<Item, number>();
  for (let i = 0; i < 24; i++) {
    const hog = hogItem(i);
    hogOf.set(hog, i);
    queue.admit(hog);
  }
  const starts: Array<{ name: string; at: number }> = [];
  const fill = (): void => {
    for (const [index, worker] of workers.entries()) {
      if (worker !== undefined) continue;
      const next = queue.peek(false);
      if (next === undefined) return;
      queue.start(next);
      starts.push({ name: next.name, at: clock.ms });
      workers[index] = { ends: clock.ms + (next.principal === 'light' ? 1 : cpuLimit), item: next };
    }
  };
  fill();
  let lightAdmitted = false;
  while (clock.ms < options.lightArrives + 10_000) {
    const ends = Math.min(...workers.map((worker) => worker?.ends ?? Number.POSITIVE_INFINITY));
    if (!lightAdmitted && options.lightArrives <= ends) {
      clock.ms = options.lightArrives;
      queue.admit(item('light', 'light'));
      lightAdmitted = true;
      fill();
      continue;
    }
    // A running execution's CPU so far, as its worker publishes it.
    clock.ms = ends;
    for (const [index, worker] of workers.entries()) {
      if (worker === undefined || worker.ends !== ends) continue;
      workers[index] = undefined;
      worker.item.used = worker.item.principal === 'light' ? 0 : cpuLimit;
      queue.finish(worker.item);
      const hog = hogOf.get(worker.item);
      if (hog === undefined) continue;
      const again = hogItem(hog);
      hogOf.set(again, hog);
      queue.admit(again);
    }
    for (const worker of workers)
      if (worker !== undefined && worker.item.principal !== 'light')
        worker.item.used = cpuLimit - (worker.ends - clock.ms);
    fill();
  }
  const light = starts.find((start) => start.name === 'light');
  const startedAt = light?.at ?? Number.POSITIVE_INFINITY;
  return {
    hogsFirst: starts.filter((start) => start.at >= options.lightArrives && start.at < startedAt).length,
    waited: startedAt - options.lightArrives,
  };
}

describe('FairQueue', () => {
  it('takes turns across principals that have used the same (none), instead of first come, first served', () => {
    const queue = fairQueue().queue;
    for (const name of ['a1', 'a2', 'a3']) queue.admit(item('a', name));
    for (const name of ['b1', 'b2']) queue.admit(item('b', name));
    queue.admit(item('c', 'c1'));
    expect(drain(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(queue.size).toBe(0);
  });

  it('holds a principal at its running cap while others go ahead', () => {
    const queue = fairQueue({ maxRunningPerPrincipal: 1 }).queue;
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
    const queue = fairQueue({ maxRunningPerPrincipal: 1, maxQueuedPerPrincipal: 2 }).queue;
    expect(queue.admit(item('a', 'a1'))).toBe(true);
    expect(queue.admit(item('a', 'a2'))).toBe(true);
    expect(queue.admit(item('a', 'a3'))).toBe(false);
    expect(queue.admit(item('b', 'b1'))).toBe(true);
    expect(queue.size).toBe(3);
  });

  it('keeps the lanes apart: priority items are only offered to the priority lane', () => {
    const queue = fairQueue().queue;
    queue.admit(item('hog', 'h1'));
    queue.admit(item('op', 'p1', true));
    expect(queue.peek(true)?.name).toBe('p1');
    expect(queue.peek(false)?.name).toBe('h1');
    const aborted = item('hog', 'h2');
    queue.admit(aborted);
    expect(queue.remove(aborted)).toBe(true);
    expect(drain(queue, false)).toEqual(['h1']);
  });

  it('starts a light principal before every principal that has just used CPU, however many are queued first', () => {
    const { queue, clock } = fairQueue({ maxQueuedPerPrincipal: 2 });
    // 24 hogs each ran once (their CPU limit, 1500 ms), one after another, and queued again.
    for (let i = 0; i < 24; i++) {
      queue.admit(item(`hog-${i}`, `hog-${i}.1`));
      clock.ms += 10;
      expect(runOne(queue, 1500)).toBe(`hog-${i}.1`);
      queue.admit(item(`hog-${i}`, `hog-${i}.2`));
    }
    queue.admit(item('light', 'light.1'));
    expect(queue.peek(false)?.name).toBe('light.1');
    runOne(queue, 1);
    // Then the hogs, the one whose CPU lies furthest back first.
    expect(Array.from({ length: 3 }, () => runOne(queue, 1500))).toEqual(['hog-0.2', 'hog-1.2', 'hog-2.2']);
  });

  it('serves a light caller within one CPU limit of 24 looping hogs on 8 workers (the scheduler simulated)', () => {
    const { queue, clock } = fairQueue({ maxRunningPerPrincipal: 4 });
    const cpuLimit = 1500;
    // Workers as the times their current execution ends (with what), or undefined when free.
    const workers: Array<{ ends: number; item: Item } | undefined> = Array.from(
      { length: 8 },
      () => undefined,
    );
    const hogs = Array.from({ length: 24 }, (_, i) => `hog-${i}`);
    let serial = 0;
    for (const hog of hogs) queue.admit(item(hog, `${hog}#${serial++}`));
    const starts: Array<{ name: string; at: number }> = [];
    const fill = (): void => {
      for (const [index, worker] of workers.entries()) {
        if (worker !== undefined) continue;
        const next = queue.peek(false);
        if (next === undefined) return;
        queue.start(next);
        starts.push({ name: next.name, at: clock.ms });
        // A hog runs to its CPU limit; the light caller's trivial script takes 1 ms.
        workers[index] = { ends: clock.ms + (next.principal === 'light' ? 1 : cpuLimit), item: next };
      }
    };
    fill();
    const lightArrives = 10_000 + 123;
    let lightAdmitted = false;
    while (clock.ms < 20_000) {
      const ends = Math.min(...workers.map((worker) => worker?.ends ?? Number.POSITIVE_INFINITY));
      if (!lightAdmitted && lightArrives <= ends) {
        clock.ms = lightArrives;
        queue.admit(item('light', 'light'));
        lightAdmitted = true;
        fill();
        continue;
      }
      clock.ms = ends;
      for (const [index, worker] of workers.entries()) {
        if (worker === undefined || worker.ends !== ends) continue;
        workers[index] = undefined;
        worker.item.used = worker.item.principal === 'light' ? 1 : cpuLimit;
        queue.finish(worker.item);
        // Each hog submits its next loop at once.
        if (worker.item.principal !== 'light')
          queue.admit(item(worker.item.principal, `${worker.item.principal}#${serial++}`));
      }
      fill();
    }
    const light = starts.find((start) => start.name === 'light');
    expect(light).toBeDefined();
    const waited = (light?.at ?? 0) - lightArrives;
    expect(waited).toBeGreaterThanOrEqual(0);
    expect(waited).toBeLessThanOrEqual(cpuLimit);
    // Not one hog started between the light caller's arrival and its start.
    expect(starts.filter((start) => start.at >= lightArrives && start.at < (light?.at ?? 0))).toEqual([]);
    expect(queue.remembered).toBeLessThanOrEqual(25);
  });

  it('serves a light caller with a history before hog principals that have not run yet (24 hogs just queued)', () => {
    // The daemon case: every hog is a new connection, so a new principal, and the light
    // caller ran before. An unknown principal used to count as having used nothing, so all 16
    // queued hogs went first and the light caller waited three CPU limits.
    for (const lightArrives of [10, 700, 1_400]) {
      const { hogsFirst, waited } = lightAmongHogs({ lightArrives, lightRanBefore: true, freshHogs: false });
      expect(hogsFirst).toBe(0);
      expect(waited).toBeLessThanOrEqual(1500);
    }
  });

  it('gives a hog nothing for coming back as a new principal each time (a connection per execute)', () => {
    for (const lightArrives of [10, 5_000, 10_123]) {
      const { hogsFirst } = lightAmongHogs({ lightArrives, lightRanBefore: true, freshHogs: true });
      expect(hogsFirst).toBe(0);
    }
  });

  it('charges a principal without a history half a typical execution, not nothing', () => {
    const { queue } = fairQueue();
    queue.admit(item('hog', 'h1'));
    runOne(queue, 1000);
    queue.admit(item('light', 'l1'));
    runOne(queue, 0);
    // The mean of the two that ended is 500: an unknown principal is charged 250.
    queue.admit(item('unknown', 'u1'));
    expect(queue.usage('unknown')).toBe(250);
    queue.admit(item('light', 'l2'));
    queue.admit(item('hog', 'h2'));
    expect(drain(queue)).toEqual(['l2', 'u1', 'h2']);
  });

  it('counts older CPU for less: usage halves every half-life', () => {
    const { queue, clock } = fairQueue();
    queue.admit(item('a', 'a1'));
    runOne(queue, 1000);
    clock.ms = 10_000;
    queue.admit(item('b', 'b1'));
    runOne(queue, 600);
    expect(queue.usage('a')).toBeCloseTo(500, 6);
    expect(queue.usage('b')).toBeCloseTo(600, 6);
    queue.admit(item('b', 'b2'));
    queue.admit(item('a', 'a2'));
    // a used more in all, but longer ago: it goes first.
    expect(queue.peek(false)?.name).toBe('a2');
  });

  it('counts what running executions have used so far, and charges what they used in the end', () => {
    const { queue, clock } = fairQueue();
    queue.admit(item('b', 'b0'));
    runOne(queue, 150);
    const running = item('a', 'a1');
    queue.admit(running);
    queue.start(running);
    queue.admit(item('a', 'a2'));
    queue.admit(item('b', 'b1'));
    running.used = 100;
    // a is computing (100 ms so far, its first): still lighter than b's 150.
    expect(queue.usage('a')).toBe(100);
    expect(queue.peek(false)?.name).toBe('a2');
    running.used = 200;
    expect(queue.peek(false)?.name).toBe('b1');
    // It ended having used 200 ms; 10 s later that is 100.
    queue.finish(running);
    clock.ms = 10_000;
    expect(queue.usage('a')).toBeCloseTo(100, 6);
    // A long wait on the host costs nothing: only CPU counts, however long it ran.
    const waiting = item('c', 'c1');
    queue.admit(waiting);
    queue.start(waiting);
    clock.ms = 40_000;
    waiting.used = 3;
    queue.finish(waiting);
    expect(queue.usage('c')).toBe(3);
  });

  it('forgets idle principals once their usage has decayed, and remembers a bounded number', () => {
    const { queue, clock } = fairQueue({ usageHalfLifeMs: 1_000, maxRememberedPrincipals: 100 });
    queue.admit(item('old', 'o1'));
    runOne(queue, 1_000);
    expect(queue.remembered).toBe(1);
    // Twenty half-lives later its 1 s is under a microsecond: the next sweep drops it.
    clock.ms = 20_000;
    queue.admit(item('new', 'n1'));
    runOne(queue, 50);
    expect(queue.usage('old')).toBe(0);
    expect(queue.remembered).toBe(1);
    // A principal that used next to nothing is kept for its history (it ran, lightly) a few half-lives.
    queue.admit(item('tiny', 't1'));
    runOne(queue, 0.1);
    expect(queue.remembered).toBe(2);
    clock.ms += 3_000;
    queue.admit(item('new', 'n2'));
    runOne(queue, 50);
    expect(queue.remembered).toBe(2);
    clock.ms += 2_000;
    queue.admit(item('new', 'n3'));
    runOne(queue, 50);
    expect(queue.remembered).toBe(1);
    // Many principals in a short time: only the most recent 100 idle ones are kept.
    for (let i = 0; i < 1_000; i++) {
      queue.admit(item(`p${i}`, `p${i}.1`));
      runOne(queue, 500);
    }
    expect(queue.remembered).toBe(100);
    expect(queue.usage('p999')).toBe(500);
    expect(queue.usage('p0')).toBe(0);
    // A returning principal brings its usage back, and still counts once.
    queue.admit(item('p999', 'p999.2'));
    expect(queue.usage('p999')).toBe(500);
    expect(queue.remembered).toBe(100);
    expect(queue.size).toBe(1);
  });
});
