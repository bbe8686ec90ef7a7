/** The server-wide budget for buffered input: bytes of unfinished lines held across all connections. */
import { serverError } from './local-errors.js';

export const DEFAULT_MAX_BUFFERED_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * One counter shared by every connection of a core. Each connection holds at most one frame's worth
 * of an unfinished line; without a shared bound, many peers each sending a near-limit line that
 * they never finish add up to an unbounded amount of memory.
 */
export class InputBudget {
  private held = 0;

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit <= 0) {
      throw serverError('invalid_options', `maxBufferedInputBytes must be a positive integer, got ${limit}`);
    }
  }

  /** Bytes held by all connections now. */
  get used(): number {
    return this.held;
  }

  /**
   * Moves one holder from `from` to `to` bytes. Growing past the limit is refused (false) and
   * nothing changes; shrinking always succeeds.
   */
  resize(from: number, to: number): boolean {
    const next = this.held - from + to;
    if (to > from && next > this.limit) return false;
    this.held = next;
    return true;
  }
}
