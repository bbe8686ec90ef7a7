/** Tests for the shared log levels. */
import { describe, expect, it } from 'vitest';
import { errorFields, isLogLevel, LOG_LEVELS, logLevelEnabled } from './logger.js';

describe('log levels', () => {
  it('orders the levels and compares against a threshold', () => {
    expect(LOG_LEVELS).toEqual(['debug', 'info', 'warn', 'error']);
    expect(logLevelEnabled('error', 'info')).toBe(true);
    expect(logLevelEnabled('info', 'info')).toBe(true);
    expect(logLevelEnabled('debug', 'info')).toBe(false);
  });

  it('recognises only the four level names', () => {
    expect(isLogLevel('warn')).toBe(true);
    expect(isLogLevel('trace')).toBe(false);
    expect(isLogLevel(3)).toBe(false);
  });

  it('keeps Error objects and stringifies anything else', () => {
    const error = new Error('x');
    expect(errorFields(error)).toEqual({ error });
    expect(errorFields(42)).toEqual({ error: '42' });
  });
});
