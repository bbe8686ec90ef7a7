import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-clock.js';

describe('the ISO clock', () => {
  it('answers what toISOString answers, for the same and for other milliseconds', () => {
    for (const ms of [0, 1_765_000_000_123, 1_765_000_000_123, 1_765_000_000_124, -1, 1_765_000_000_123])
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('stamps now by default', () => {
    const before = Date.now();
    const stamped = Date.parse(isoTime());
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });
});
