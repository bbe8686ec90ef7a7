/** Tests for the default logger: one JSON line per record at or above its threshold. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogLevel } from './logger.js';
import { stderrLogger } from './stderr-logger.js';

function capture(): { lines: string[]; stream: { write(line: string): void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (line) => lines.push(line) } };
}

const records = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('stderrLogger', () => {
  it('writes one newline-terminated JSON object per record, with the syslog level name', () => {
    const { lines, stream } = capture();
    const logger = stderrLogger({ level: 'debug', stream });
    logger.debug('d', { n: 1 });
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
    expect(records(lines).map((r) => [r.level, r.msg])).toEqual([
      ['debug', 'd'],
      ['info', 'i'],
      ['warning', 'w'],
      ['error', 'e'],
    ]);
    expect(records(lines)[0]).toMatchObject({ n: 1, time: expect.any(String) });
  });

  it('writes only records at or above its threshold, which may be any of the eight levels', () => {
    const levelsAt = (options: { level?: LogLevel }) => {
      const { lines, stream } = capture();
      const logger = stderrLogger({ ...options, stream });
      logger.debug('d');
      logger.info('i');
      logger.warn('w');
      logger.error('e');
      return records(lines).map((r) => r.level);
    };
    expect(levelsAt({})).toEqual(['info', 'warning', 'error']);
    expect(levelsAt({ level: 'notice' })).toEqual(['warning', 'error']);
    expect(levelsAt({ level: 'warning' })).toEqual(['warning', 'error']);
    expect(levelsAt({ level: 'critical' })).toEqual([]);
  });

  it('serialises errors and survives fields JSON cannot encode', () => {
    const { lines, stream } = capture();
    const logger = stderrLogger({ stream });
    logger.error('failed', { error: new TypeError('boom') });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    logger.warn('odd', { circular });
    const [failed, odd] = records(lines);
    expect(failed?.error).toMatchObject({ name: 'TypeError', message: 'boom' });
    expect(odd).toEqual({ time: expect.any(String), level: 'warning', msg: 'odd' });
  });

  it('writes through console.error by default (stderr on Node, the log on workerd), never stdout', () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    stderrLogger().warn('careful', { id: 7 });
    stderrLogger().debug('hidden');
    expect(err).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(err.mock.calls[0]?.[0]))).toMatchObject({
      level: 'warning',
      msg: 'careful',
      id: 7,
    });
    expect(out).not.toHaveBeenCalled();
  });
});
