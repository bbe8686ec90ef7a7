/**
 * The History view's reading of the run store, without a browser: the `agent://runs` and
 * `agent://logs` URIs it asks for, stored summaries as rows (malformed ones dropped), a log's
 * pages read to the end and its messages as output lines, and the time words it shows.
 */
import { describe, expect, it } from 'vitest';
import type { AgentdApi } from '../ui/src/agentd-api.js';
import type { Json } from '../ui/src/connection.js';
import {
  firstLine,
  historyRow,
  linesOf,
  logsUri,
  readHistoryPage,
  readWholeLog,
  runsUri,
} from '../ui/src/history-api.js';
import { entryOf, type RunEventEntry } from '../ui/src/run-events.js';
import { dateTime, durationWords } from '../ui/src/time-words.js';

/** An API answering reads from a table of URIs, recording what was asked. */
function answering(table: Record<string, Json>): AgentdApi & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async read(uri) {
      asked.push(uri);
      const body = table[uri];
      if (body === undefined) throw new Error(`no such resource: ${uri}`);
      return body;
    },
    async op() {
      throw new Error('no operations here');
    },
  };
}

const message = (seq: number, text: string, stream?: string) => ({
  seq,
  at: '2026-01-01T00:00:00.000Z',
  event: { type: 'message', text, ...(stream === undefined ? {} : { stream }) },
});

describe('history URIs', () => {
  it('names only the filters given, trimmed, and the cursor', () => {
    expect(runsUri({})).toBe('agent://runs?limit=50');
    expect(runsUri({ agent: ' claude ', state: '', text: 'a b&c' }, 'CUR/1')).toBe(
      'agent://runs?agent=claude&text=a+b%26c&cursor=CUR%2F1&limit=50',
    );
    expect(runsUri({ state: 'lost' }, undefined, 5)).toBe('agent://runs?state=lost&limit=5');
    expect(logsUri('h1', 0)).toBe('agent://logs/h1');
    expect(logsUri('h1', 1000)).toBe('agent://logs/h1?after=1000');
  });
});

describe('history rows', () => {
  const now = Date.parse('2026-01-01T00:10:00.000Z');
  const summary = {
    handle: 'h1',
    runId: 'r1',
    agent: 'claude',
    state: 'succeeded',
    terminal: true,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:01:05.000Z',
  };

  it('says what a stored run was: agent, state, start, duration, usage, the first line asked', () => {
    const row = historyRow(
      {
        ...summary,
        usage: { inputTokens: 1234, outputTokens: 56, costUsd: 0.0123 },
        instruction: '\n  fix the build \nand then the tests',
      },
      now,
    );
    expect(row).toMatchObject({
      handle: 'h1',
      runId: 'r1',
      agent: 'claude',
      state: 'succeeded',
      terminal: true,
      duration: '1m 5s',
      usage: '1,234 in · 56 out · $0.0123',
      instruction: 'fix the build',
    });
    expect(row?.started).toBe(dateTime(summary.startedAt));
  });

  it('leaves out what a record lacks and drops what names no run', () => {
    const row = historyRow({ ...summary, endedAt: undefined, terminal: undefined, instruction: '  \n' }, now);
    expect(row).not.toHaveProperty('usage');
    expect(row).not.toHaveProperty('instruction');
    // Still running (or lost before it ended): the duration runs to now.
    expect(row).toMatchObject({ terminal: false, duration: '10m 0s' });
    expect(historyRow({ runId: 'r1', startedAt: summary.startedAt }, now)).toBeUndefined();
    expect(historyRow({ ...summary, handle: 7 }, now)).toBeUndefined();
    expect(historyRow(null, now)).toBeUndefined();
    expect(historyRow(['h1'], now)).toBeUndefined();
  });

  it('reads a page of rows and its cursor; a cursor that does not move on ends the paging', async () => {
    const api = answering({
      'agent://runs?text=x&limit=50': { runs: [summary, { nonsense: true }], nextCursor: 'c2' },
      'agent://runs?text=x&cursor=c2&limit=50': { runs: [], nextCursor: 'c2' },
    });
    const first = await readHistoryPage(api, { text: 'x' });
    expect(first.rows.map((r) => r.handle)).toEqual(['h1']);
    expect(first.nextCursor).toBe('c2');
    expect(await readHistoryPage(api, { text: 'x' }, 'c2')).toEqual({ rows: [] });
  });
});

describe('whole logs', () => {
  it('reads every page in order, from each one’s `next`, and stops at the last', async () => {
    const api = answering({
      'agent://logs/h1': { events: [message(1, 'one'), message(2, 'two')], next: 2 },
      'agent://logs/h1?after=2': {
        events: [message(3, 'three'), { seq: 4, event: { type: '??' } }],
        next: 4,
      },
      'agent://logs/h1?after=4': { events: [message(5, 'five', 'stderr')] },
    });
    const entries = await readWholeLog(api, 'h1');
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 5]);
    expect(api.asked).toEqual(['agent://logs/h1', 'agent://logs/h1?after=2', 'agent://logs/h1?after=4']);
  });

  it('never reads the same page twice when `next` does not move on', async () => {
    const api = answering({ 'agent://logs/h1': { events: [message(1, 'one')], next: 0 } });
    expect(await readWholeLog(api, 'h1')).toHaveLength(1);
    expect(api.asked).toEqual(['agent://logs/h1']);
  });

  it('turns message events into output lines, each line its own, stderr marked', () => {
    const entries = [
      message(1, 'first'),
      message(2, 'warn', 'stderr'),
      message(3, 'a\nb\n'),
      message(4, ''),
      { seq: 5, event: { type: 'turn_end', turn: 1, stopReason: 'end_turn' } },
    ].map((e) => entryOf(e) as RunEventEntry);
    expect(linesOf(entries)).toEqual([
      { stream: 'stdout', text: 'first' },
      { stream: 'stderr', text: 'warn' },
      { stream: 'stdout', text: 'a' },
      { stream: 'stdout', text: 'b' },
      { stream: 'stdout', text: '' },
    ]);
  });
});

describe('time words', () => {
  it('says durations and local date-times', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(durationWords(at, '2026-01-01T00:00:42.000Z', 0)).toBe('42s');
    expect(durationWords(at, '2026-01-01T02:10:00.000Z', 0)).toBe('2h 10m');
    expect(durationWords(at, undefined, Date.parse(at) + 61_000)).toBe('1m 1s');
    expect(durationWords('not a time', undefined, 0)).toBe('');
    expect(dateTime('nonsense')).toBe('');
    const local = new Date(2026, 0, 2, 3, 4, 5);
    expect(dateTime(local.toISOString())).toBe('2026-01-02 03:04:05');
    expect(firstLine('\n\n  x  \ny')).toBe('x');
  });
});
