import { describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from './sandbox-limits.js';

describe('resolveLimits', () => {
  test('defaults mirror the origin: 10 s CPU, 30 s wall, 64 MiB', () => {
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toMatchObject({ cpuMs: 10_000, wallMs: 30_000, memoryBytes: 64 * 1024 * 1024 });
  });

  test('later layers win and missing layers are skipped', () => {
    const limits = resolveLimits({ cpuMs: 500, wallMs: 1000 }, undefined, { cpuMs: 200 });
    expect(limits).toMatchObject({ cpuMs: 200, wallMs: 1000, maxCalls: DEFAULT_LIMITS.maxCalls });
  });

  test('nonsense is refused with invalid_limits', () => {
    for (const bad of [
      { cpuMs: 0 },
      { wallMs: Number.NaN },
      { memoryBytes: 1024 },
      { memoryBytes: 8 * 2 ** 30 },
      { maxCalls: -1 },
    ]) {
      expect(() => resolveLimits(bad)).toThrow(expect.objectContaining({ code: 'invalid_limits' }));
    }
    expect(() => resolveLimits({ bogus: 1 } as never)).toThrow(/Unknown sandbox limit: bogus/);
  });
});
