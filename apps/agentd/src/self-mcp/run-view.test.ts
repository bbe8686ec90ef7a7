import { describe, expect, it } from 'vitest';
import { encodedSize, runDetail, runSummary, turnView } from './run-view.js';

const base = {
  handle: 'sa_x',
  runId: 'run_x',
  agent: 'plain',
  mode: 'plain',
  state: 'succeeded',
  terminal: true,
  startedAt: '2026-01-01T00:00:00.000Z',
  turns: 1,
  warm: false,
  busy: false,
};

const wire = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('encodedSize', () => {
  it('measures text as JSON sends it', () => {
    for (const text of ['abc', '\u0000\u001b', '\n\t"\\', 'é日🎉', '\ud800x', 'x\udc00'])
      expect(encodedSize(text)).toBe(wire(text) - 2);
  });
});

describe('runDetail', () => {
  it('keeps output that fits, unmarked', () => {
    const view = runDetail({ ...base, output: 'hello', result: { text: 'hello' } });
    expect(view.output).toBe('hello');
    expect(view.truncated).toBeUndefined();
  });

  it('bounds output and result by their escaped size and marks the cut', () => {
    const nuls = '\u0000'.repeat(400_000);
    const view = runDetail({ ...base, output: nuls, result: { text: nuls } }, 64 * 1024);
    expect(view.truncated).toBe(true);
    expect(view.outputBytes).toBe(400_000);
    expect(view.output).toMatch(/\[agentd: output truncated here; the whole output is 400000 bytes\]$/);
    expect(encodedSize(view.output as string)).toBeLessThanOrEqual(64 * 1024);
    expect(wire(view)).toBeLessThan(3 * 64 * 1024);
    expect((view.result as { text: string }).text).toMatch(/truncated here/);
  });

  it('keeps a result that fits as sent (its JSON measured once, not escaped twice)', () => {
    const escs = '\u001b'.repeat(170_000);
    const view = runDetail({ ...base, output: escs, result: { text: escs } });
    expect(view.truncated).toBeUndefined();
    expect(view.result).toEqual({ text: escs });
    expect(view.output).toBe(escs);
  });

  it('never cuts a surrogate pair in two', () => {
    const view = runDetail({ ...base, output: '🎉'.repeat(1000) }, 101);
    const output = view.output as string;
    expect(output).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('leaves out a protocol result too large to send; output still says it', () => {
    const view = runDetail(
      { ...base, mode: 'protocol', output: 'x'.repeat(2000), result: { a: 'x'.repeat(2000), b: 1 } },
      1000,
    );
    expect(view.result).toBeUndefined();
    expect(view.truncated).toBe(true);
  });
});

describe('runSummary', () => {
  it('carries no output or result, only sizes and a bounded tail', () => {
    const tail = Array.from({ length: 50 }, (_, i) => ({
      stream: 'stdout',
      text: `${i}${'\u001b'.repeat(500)}`,
    }));
    const view = runSummary({
      ...base,
      state: 'running',
      terminal: false,
      output: '\u001b'.repeat(170_000),
      result: { text: '\u001b'.repeat(170_000) },
      tail,
      error: { message: 'm', data: 'x'.repeat(100_000), stderrTail: '\u0000'.repeat(4096) },
    });
    expect(view.output).toBeUndefined();
    expect(view.result).toBeUndefined();
    expect(view.outputBytes).toBe(170_000);
    expect(view.tailTruncated).toBe(true);
    expect(wire(view)).toBeLessThan(12 * 1024);
    // The last lines, whole (a page merges them with the tail it read by handle).
    const lines = view.tail as { text: string }[];
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toEqual(tail.at(-1));
  });
});

describe('turnView', () => {
  it("bounds a warm turn's output and reply, and marks the cut", () => {
    const nuls = '\u0000'.repeat(100_000);
    const view = turnView(
      { handle: 'sa_x', turn: 2, isError: false, output: nuls, reply: { text: nuls } },
      4096,
    ) as Record<string, unknown>;
    expect(view.truncated).toBe(true);
    expect(view.outputBytes).toBe(100_000);
    expect(wire(view)).toBeLessThan(3 * 4096);
    expect(turnView({ output: 'ok', reply: { text: 'ok' } })).toEqual({
      output: 'ok',
      reply: { text: 'ok' },
    });
  });
});

describe('a run’s recent events in its views', () => {
  const events = Array.from({ length: 200 }, (_, i) => ({
    type: 'message',
    text: 'z'.repeat(2000),
    seq: i + 1,
    at: '2026-01-01T00:00:00.000Z',
  }));

  it('the detail view keeps the newest that fit its bound and says older ones were left out', () => {
    const view = runDetail({ ...base, events });
    const kept = view.events as Array<{ seq: number }>;
    expect(kept.length).toBeLessThan(events.length);
    expect(kept.at(-1)?.seq).toBe(200);
    expect(wire(kept)).toBeLessThanOrEqual(256 * 1024);
    expect(view.eventsTruncated).toBe(true);
    expect(runDetail({ ...base, events: events.slice(0, 3) }).eventsTruncated).toBeUndefined();
  });

  it('a listing row carries no events', () => {
    expect(runSummary({ ...base, events }).events).toBeUndefined();
  });
});
