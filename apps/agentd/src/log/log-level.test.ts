/** Tests for the level names agentd accepts and how a level reaches a four-method Logger. */
import { LOG_LEVELS } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { LOG_LEVEL_SPELLINGS, logAt, parseLogLevel } from './log-level.js';

describe('parseLogLevel', () => {
  it("accepts MCP's eight levels as they are and `warn` as `warning`", () => {
    for (const level of LOG_LEVELS) expect(parseLogLevel(level)).toBe(level);
    expect(parseLogLevel('warn')).toBe('warning');
    expect(LOG_LEVEL_SPELLINGS).toEqual([...LOG_LEVELS, 'warn']);
  });

  it('names no level for anything else', () => {
    for (const value of ['trace', 'WARN', '', undefined, 3]) expect(parseLogLevel(value)).toBeUndefined();
  });
});

describe('logAt', () => {
  it('writes each of the eight levels through the nearest Logger method', () => {
    const calls: string[] = [];
    const logger = {
      debug: () => calls.push('debug'),
      info: () => calls.push('info'),
      warn: () => calls.push('warn'),
      error: () => calls.push('error'),
    };
    for (const level of LOG_LEVELS) logAt(logger, level, 'm');
    expect(calls).toEqual(['debug', 'info', 'info', 'warn', 'error', 'error', 'error', 'error']);
  });
});
