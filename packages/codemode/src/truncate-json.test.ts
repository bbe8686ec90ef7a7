import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { truncateJson, utf8Length } from './truncate-json.js';

describe('truncateJson', () => {
  test('leaves a value that fits untouched', () => {
    const value = { a: [1, 2, 3], b: 'text' };
    expect(truncateJson(value, 1000)).toEqual({ text: JSON.stringify(value), truncated: false });
  });

  test('cuts long arrays, long strings and deep nesting, marking each cut', () => {
    const value = {
      rows: Array.from({ length: 500 }, (_, i) => ({ i, label: `row ${i}` })),
      blob: 'x'.repeat(5000),
    };
    const { text, truncated } = truncateJson(value, 2000);
    expect(truncated).toBe(true);
    expect(utf8Length(text)).toBeLessThanOrEqual(2000);
    const parsed = JSON.parse(text) as { rows: unknown[]; blob: string };
    expect(parsed.rows[0]).toEqual({ i: 0, label: 'row 0' });
    expect(parsed.rows.at(-1)).toMatch(/^… \d+ more items truncated$/);
    expect(parsed.blob).toMatch(/more characters truncated]$/);
  });

  test('always yields valid JSON within the budget', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 256, max: 4096 }), (value, budget) => {
        const { text, truncated } = truncateJson(value, budget);
        expect(() => JSON.parse(text)).not.toThrow();
        expect(utf8Length(text)).toBeLessThanOrEqual(
          Math.max(budget, utf8Length(JSON.stringify(value) ?? 'null')),
        );
        if (!truncated) expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value) ?? 'null'));
        else expect(utf8Length(text)).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 300 },
    );
  });

  test('counts bytes, not characters', () => {
    const { text, truncated } = truncateJson('€'.repeat(1000), 600);
    expect(truncated).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(600);
  });
});
