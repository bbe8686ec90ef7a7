/** Tests for the one log-level vocabulary. */
import { describe, expect, it } from 'vitest';
import { errorFields, isLogLevel, LOG_LEVELS, logLevelEnabled } from './logger.js';

describe('log levels', () => {
  it("are MCP's eight syslog severities, least severe first", () => {
    expect(LOG_LEVELS).toEqual([
      'debug',
      'info',
      'notice',
      'warning',
      'error',
      'critical',
      'alert',
      'emergency',
    ]);
    expect(Object.isFrozen(LOG_LEVELS)).toBe(true);
  });

  it('admits a level at or above the threshold, for every pair of the eight', () => {
    for (const [i, level] of LOG_LEVELS.entries()) {
      for (const [j, threshold] of LOG_LEVELS.entries()) {
        expect(logLevelEnabled(level, threshold), `${level} at threshold ${threshold}`).toBe(i >= j);
      }
    }
    expect(logLevelEnabled('notice', 'info')).toBe(true);
    expect(logLevelEnabled('notice', 'warning')).toBe(false);
  });

  it('recognises only the eight level names', () => {
    for (const level of LOG_LEVELS) expect(isLogLevel(level)).toBe(true);
    expect(isLogLevel('warn')).toBe(false);
    expect(isLogLevel('trace')).toBe(false);
    expect(isLogLevel(3)).toBe(false);
  });

  it('keeps Error objects and stringifies anything else', () => {
    const error = new Error('x');
    expect(errorFields(error)).toEqual({ error });
    expect(errorFields(42)).toEqual({ error: '42' });
  });
});
