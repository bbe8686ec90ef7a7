import { describe, expect, it } from 'vitest';
import { daemonStatusText, eventText, runsText } from './format.js';

const run = (handle: string, state: string) => ({
  handle,
  runId: `run_${handle}`,
  agent: 'a',
  state,
  startedAt: '2026-12-02T00:00:00.000Z',
  endedAt: '2026-12-02T00:00:02.000Z',
});

describe('format', () => {
  it('colours the runs table by state without breaking its columns', () => {
    const runs = [run('sa_1', 'succeeded'), run('sa_2', 'failed')];
    const plain = runsText(runs);
    const coloured = runsText(runs, undefined, true);
    expect(plain).not.toContain('\u001b');
    expect(coloured).toContain('\u001b[32msucceeded\u001b[0m');
    expect(coloured).toContain('\u001b[31mfailed   \u001b[0m');
    // Without the escapes the table is the plain one, column for column.
    const escapes = ['\u001b[32m', '\u001b[31m', '\u001b[0m'];
    expect(escapes.reduce((text, code) => text.replaceAll(code, ''), coloured)).toBe(plain);
  });

  it('makes warnings, errors and a paused daemon stand out only when asked', () => {
    const warn = { seq: 7, time: 't', level: 'warning', msg: 'careful' };
    expect(eventText(warn)).toBe('    7 t warning careful\n');
    expect(eventText(warn, true)).toBe('    7 t \u001b[33mwarning\u001b[0m careful\n');
    expect(eventText({ ...warn, level: 'critical' }, true)).toBe(
      '    7 t \u001b[31mcritical\u001b[0m careful\n',
    );
    expect(eventText({ ...warn, level: 'info' }, true)).toBe('    7 t info    careful\n');
    expect(daemonStatusText({ paused: true }, true)).toContain(': \u001b[33mpaused\u001b[0m, not ready');
    expect(daemonStatusText({ paused: true })).toContain(': paused, not ready');
  });
});
