/** Ordered, fire-and-forget writes per run: each run's records reach Redis in the order they changed. */
import type { Logger } from '@agentd/rpc-frame';

export class WriteQueue {
  readonly #tails = new Map<string, Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /**
   * `key` orders the writes (a run's handle); `runId` names the run in the log, since a handle is a
   * capability and never logged.
   */
  enqueue(key: string, write: () => Promise<unknown>, runId: string | undefined): void {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const next = before
      .then(write)
      .then(
        () => {},
        (error: unknown) =>
          // Redis away: the record is rewritten whole on reconnect (or at the run's next change).
          this.logger.warn('run record not written to Redis', {
            component: 'cluster',
            ...(runId === undefined ? {} : { runId }),
            error: String(error),
          }),
      )
      .finally(() => {
        if (this.#tails.get(key) === next) this.#tails.delete(key);
      });
    this.#tails.set(key, next);
  }

  /** Resolves once every write queued for `key` so far has finished (or failed). */
  async settled(key: string): Promise<void> {
    await this.#tails.get(key);
  }

  async drain(): Promise<void> {
    await Promise.all(this.#tails.values());
  }
}
