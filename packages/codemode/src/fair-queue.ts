/**
 * Which queued `execute` starts next: fair across principals, with a priority lane.
 *
 * Each principal has its own FIFO; the next execution comes from the principal served least
 * recently among those under their running cap (round-robin), so one principal queueing hundreds
 * of scripts delays another's by at most one turn each. The priority lane (management callers) is
 * always looked at first. Pure bookkeeping: the runner decides whether a worker can take it.
 */
export interface Queued {
  readonly principal: string;
  readonly priority: boolean;
}

interface PrincipalState<T> {
  running: number;
  readonly queue: T[];
  /** When this principal last had an execution started (a tick), for round-robin. */
  served: number;
}

export class FairQueue<T extends Queued> {
  readonly #principals = new Map<string, PrincipalState<T>>();
  readonly #maxRunning: number;
  readonly #maxQueued: number;
  #tick = 0;
  #size = 0;

  constructor(options: { maxRunningPerPrincipal: number; maxQueuedPerPrincipal: number }) {
    this.#maxRunning = options.maxRunningPerPrincipal;
    this.#maxQueued = options.maxQueuedPerPrincipal;
  }

  /** Executions waiting, all principals together. */
  get size(): number {
    return this.#size;
  }

  running(principal: string): number {
    return this.#principals.get(principal)?.running ?? 0;
  }

  queued(principal: string): number {
    return this.#principals.get(principal)?.queue.length ?? 0;
  }

  /** Queues `item`; false (nothing queued) when its principal already has its maximum waiting. */
  admit(item: T): boolean {
    const state = this.#state(item.principal);
    if (state.queue.length >= this.#maxQueued) {
      this.#forgetIfIdle(item.principal, state);
      return false;
    }
    state.queue.push(item);
    this.#size += 1;
    return true;
  }

  /** Takes a queued item out without starting it (it was aborted or timed out while waiting). */
  remove(item: T): boolean {
    const state = this.#principals.get(item.principal);
    const index = state?.queue.indexOf(item) ?? -1;
    if (state === undefined || index < 0) return false;
    state.queue.splice(index, 1);
    this.#size -= 1;
    this.#forgetIfIdle(item.principal, state);
    return true;
  }

  /** The next item of a lane to start, not removed: least recently served principal under its cap. */
  peek(priority: boolean): T | undefined {
    let best: T | undefined;
    let bestServed = Number.POSITIVE_INFINITY;
    for (const state of this.#principals.values()) {
      if (state.running >= this.#maxRunning || state.served >= bestServed) continue;
      const item = state.queue.find((queued) => queued.priority === priority);
      if (item === undefined) continue;
      best = item;
      bestServed = state.served;
    }
    return best;
  }

  /** `item` (from peek) starts now: out of the queue, counted as running for its principal. */
  start(item: T): void {
    const state = this.#state(item.principal);
    const index = state.queue.indexOf(item);
    if (index >= 0) {
      state.queue.splice(index, 1);
      this.#size -= 1;
    }
    state.running += 1;
    this.#tick += 1;
    state.served = this.#tick;
  }

  /** A started item ended. */
  finish(item: T): void {
    const state = this.#principals.get(item.principal);
    if (state === undefined) return;
    state.running = Math.max(0, state.running - 1);
    this.#forgetIfIdle(item.principal, state);
  }

  #state(principal: string): PrincipalState<T> {
    let state = this.#principals.get(principal);
    if (state === undefined) {
      // A new principal has never been served: it goes before everyone who has.
      state = { running: 0, queue: [], served: 0 };
      this.#principals.set(principal, state);
    }
    return state;
  }

  /** Idle principals are forgotten (bounded memory); a returning one starts as new, which is fair. */
  #forgetIfIdle(principal: string, state: PrincipalState<T>): void {
    if (state.running === 0 && state.queue.length === 0) this.#principals.delete(principal);
  }
}
