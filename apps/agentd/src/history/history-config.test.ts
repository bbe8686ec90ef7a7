/** The `history` block's schema, compiled as the config validator compiles it (ajv, strict). */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { HISTORY_DEFAULTS, HISTORY_SCHEMA } from './history-config.js';

const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(HISTORY_SCHEMA);

describe('HISTORY_SCHEMA', () => {
  it('accepts the defaults, a partial block and an empty one', () => {
    expect(validate(HISTORY_DEFAULTS)).toBe(true);
    expect(validate({ maxAgeDays: 0.5 })).toBe(true);
    expect(validate({})).toBe(true);
  });

  it('refuses unknown keys and out-of-range bounds', () => {
    for (const bad of [
      { maxRun: 5 },
      { maxRuns: 0 },
      { maxRuns: 1.5 },
      { maxAgeDays: 0 },
      { maxBytes: 1000 },
      { maxBytes: '1G' },
    ]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
