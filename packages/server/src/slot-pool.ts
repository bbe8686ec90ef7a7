/** A counting semaphore with abortable waits: bounds the requests one connection runs at once. */

export class SlotPool {
  private used = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(readonly size: number) {}

  /** Slots held plus waits queued. */
  get pending(): number {
    return this.used + this.waiters.length;
  }

  /** Resolves true with a slot held, or false when the signal aborted first (no slot held). */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.used < this.size) {
      this.used += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.used += 1;
        resolve(true);
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(grant);
        if (at !== -1) this.waiters.splice(at, 1);
        this.checkIdle();
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  release(): void {
    this.used -= 1;
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.checkIdle();
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
