/** A counting semaphore: bounds the requests one connection runs at once; waiters are plain callbacks. */

export class SlotPool {
  private used = 0;
  /** FIFO of waiters from `head` on (a head index, not shift(): shift is O(n) on long queues). */
  private waiters: Array<(() => void) | undefined> = [];
  private head = 0;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(readonly size: number) {}

  /** Slots held plus waits queued. */
  get pending(): number {
    return this.used + this.queued;
  }

  private get queued(): number {
    return this.waiters.length - this.head;
  }

  /** Takes a slot now if one is free. */
  tryAcquire(): boolean {
    if (this.used >= this.size) return false;
    this.used += 1;
    return true;
  }

  /** Queues `grant`, called (with the slot held) when a slot frees up. */
  enqueue(grant: () => void): void {
    this.waiters.push(grant);
  }

  /** Removes a queued `grant` that no longer wants its slot; false if it was not queued. */
  withdraw(grant: () => void): boolean {
    const at = this.waiters.indexOf(grant, this.head);
    if (at === -1) return false;
    this.waiters.splice(at, 1);
    this.checkIdle();
    return true;
  }

  /** Frees a slot, handing it straight to the next waiter if any. */
  release(): void {
    const next = this.dequeue();
    if (next !== undefined) {
      next();
      return;
    }
    this.used -= 1;
    this.checkIdle();
  }

  private dequeue(): (() => void) | undefined {
    if (this.head >= this.waiters.length) return undefined;
    const next = this.waiters[this.head];
    this.waiters[this.head] = undefined;
    this.head += 1;
    if (this.head === this.waiters.length) {
      this.waiters = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
    return next;
  }

  /** Resolves once no slot is held and nothing waits. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private checkIdle(): void {
    if (this.pending !== 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
