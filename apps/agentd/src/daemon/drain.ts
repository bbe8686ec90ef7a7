/** The graceful stop, begun once (a signal, the drain operation, stdin's end); later calls join it. */
export class Drain {
  #done: Promise<void> | undefined;
  #startedAt: string | undefined;
  #deadlineMs: number | undefined;

  constructor(private readonly stop: (deadlineMs: number, reason: string) => Promise<void>) {}

  get begun(): boolean {
    return this.#done !== undefined;
  }

  /** When the drain began and the deadline it was given, once begun. */
  get state(): { startedAt: string; deadlineMs: number } | undefined {
    return this.#startedAt === undefined || this.#deadlineMs === undefined
      ? undefined
      : { startedAt: this.#startedAt, deadlineMs: this.#deadlineMs };
  }

  begin(deadlineMs: number, reason: string): Promise<void> {
    if (this.#done !== undefined) return this.#done;
    this.#startedAt = new Date().toISOString();
    this.#deadlineMs = deadlineMs;
    this.#done = this.stop(deadlineMs, reason);
    return this.#done;
  }
}
