/**
 * The page's reading of the run event model, without a browser: wire events checked (malformed
 * ones dropped), the event log's snapshots and streamed events folded without repeats, diffs as
 * line diffs, and the run model a pure function of a status and its events.
 */
import { describe, expect, it } from 'vitest';
import { EventLog } from '../ui/src/event-log.js';
import { lineDiff } from '../ui/src/line-diff.js';
import { entriesOf, entryOf, notifiedEntry, type RunEventEntry, runEventOf } from '../ui/src/run-events.js';
import { decisionWords, runModel, usageWords } from '../ui/src/run-model.js';

const entries = (...events: unknown[]): RunEventEntry[] =>
  events.map((e, seq) => entryOf({ seq, at: '2026-01-01T00:00:00.000Z', ...(e as object) }) as RunEventEntry);
const tool = (id: string, status: string, extra: object = {}) => ({
  type: 'tool_call',
  toolCall: { id, title: `Write ${id}.txt`, kind: 'edit', status, locations: [`/w/${id}.txt`], ...extra },
});
const request = (requestId: string, id = 'call-1') => ({
  requestId,
  toolCall: { id, title: `Write ${id}.txt`, kind: 'edit', status: 'pending' },
  options: [
    { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'always', name: 'Always', kind: 'allow_always' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ],
});

describe('wire events', () => {
  it('keeps what it understands and drops the malformed', () => {
    expect(runEventOf({ type: 'message', text: 'hi', stream: 'stderr' })).toEqual({
      type: 'message',
      text: 'hi',
      stream: 'stderr',
    });
    expect(runEventOf({ type: 'message' })).toBeUndefined();
    expect(runEventOf({ type: 'tool_call', toolCall: { title: 'no id' } })).toBeUndefined();
    expect(runEventOf({ type: 'launch_missiles' })).toBeUndefined();
    expect(runEventOf('text')).toBeUndefined();
    // Unknown enum values fall back rather than reach the DOM as class names or labels.
    expect(runEventOf(tool('a', '<b>'))).toMatchObject({ toolCall: { status: 'pending' } });
    expect(
      runEventOf({ type: 'permission_decision', requestId: 'r', decision: { outcome: 'selected' } }),
    ).toBeUndefined();
  });

  it('reads a status list (flat or wrapped) and a streamed run_event notification', () => {
    const status = {
      events: [
        { seq: 4, at: 'x', type: 'thought', text: 't' },
        { seq: 5, event: { type: 'turn_end', turn: 1, stopReason: 'end_turn', text: '' } },
        { seq: 6, type: 'nonsense' },
      ],
    };
    expect(entriesOf(status)).toEqual([
      { seq: 4, at: 'x', event: { type: 'thought', text: 't' } },
      { seq: 5, event: { type: 'turn_end', turn: 1, stopReason: 'end_turn' } },
    ]);
    expect(entriesOf({})).toBeUndefined();
    const notified = notifiedEntry({
      method: 'notifications/message',
      params: {
        level: 'info',
        data: { event: 'run_event', runId: 'r1', run: { type: 'thought', text: 'x' } },
      },
    });
    expect(notified).toEqual({ event: { type: 'thought', text: 'x' } });
    expect(notifiedEntry({ method: 'notifications/message', params: { data: 'a line' } })).toBeUndefined();
  });
});

describe('EventLog', () => {
  it('takes a snapshot, keeps later streamed events, and ignores repeats', () => {
    const log = new EventLog();
    const [a, b, c] = entries(
      { type: 'thought', text: 'a' },
      { type: 'thought', text: 'b' },
      {
        type: 'thought',
        text: 'c',
      },
    ) as [RunEventEntry, RunEventEntry, RunEventEntry];
    expect(log.push(c)).toBe(true);
    expect(log.push(c)).toBe(false);
    expect(log.adopt([a, b])).toBe(true);
    expect(log.entries.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(log.adopt([a, b, c])).toBe(false);
  });

  it('replaces what it learnt without a seq with the next snapshot, and stays bounded', () => {
    const log = new EventLog(2);
    log.push({ event: { type: 'thought', text: 'local' } });
    const snap = entries(
      { type: 'thought', text: 'x' },
      { type: 'thought', text: 'y' },
      { type: 'thought', text: 'z' },
    );
    log.adopt(snap);
    expect(log.entries.map((e) => (e.event.type === 'thought' ? e.event.text : ''))).toEqual(['y', 'z']);
  });
});

describe('lineDiff', () => {
  it('shows kept, removed and added lines in order', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
      { op: '+', text: 'd' },
    ]);
    expect(lineDiff(undefined, 'new')).toEqual([{ op: '+', text: 'new' }]);
    expect(lineDiff('x\ny', 'y')).toEqual([
      { op: '-', text: 'x' },
      { op: ' ', text: 'y' },
    ]);
  });

  it('falls back to removed-then-added past its table size, still complete', () => {
    const old = Array.from({ length: 600 }, (_, i) => `o${i}`).join('\n');
    const next = Array.from({ length: 600 }, (_, i) => `n${i}`).join('\n');
    const lines = lineDiff(old, next);
    expect(lines).toHaveLength(1200);
    expect(lines[0]).toEqual({ op: '-', text: 'o0' });
    expect(lines[600]).toEqual({ op: '+', text: 'n0' });
  });
});

describe('runModel', () => {
  const acp = { mode: 'acp' };

  it('runs chunks into text, thoughts into one block, and folds a tool call into one row', () => {
    const model = runModel(
      acp,
      entries(
        { type: 'thought', text: 'think ' },
        { type: 'thought', text: 'more' },
        { type: 'message', text: 'hello ' },
        { type: 'message', text: 'world' },
        tool('call-1', 'pending', { input: '{"path":"a"}' }),
        { type: 'diff', path: '/w/a', newText: 'x' },
        tool('call-1', 'completed', { output: 'written' }),
        { type: 'diff', path: '/w/a', newText: 'x' },
        { type: 'message', text: 'done' },
      ),
    );
    expect(model.blocks.map((b) => b.kind)).toEqual(['thought', 'text', 'tool', 'diff', 'text']);
    expect(model.blocks[0]).toMatchObject({ text: 'think more' });
    expect(model.blocks[1]).toMatchObject({ text: 'hello world' });
    expect(model.blocks[2]).toMatchObject({
      key: 's4',
      call: { status: 'completed', input: '{"path":"a"}', output: 'written', locations: ['/w/call-1.txt'] },
    });
  });

  it('starts a new row for a tool call id reused in a later turn', () => {
    const model = runModel(
      acp,
      entries(
        tool('call-1', 'completed'),
        { type: 'turn_end', turn: 1, stopReason: 'end_turn' },
        tool('call-1', 'pending'),
      ),
    );
    expect(model.blocks.map((b) => (b.kind === 'tool' ? b.call.status : b.kind))).toEqual([
      'completed',
      'turn',
      'pending',
    ]);
  });

  it("leaves plain runs' messages to the output pane", () => {
    const model = runModel({ mode: 'plain' }, entries({ type: 'message', text: 'line' }));
    expect(model.blocks).toEqual([]);
  });

  it('keeps the latest plan and usage, the status usage first', () => {
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0 };
    const events = entries(
      { type: 'plan', entries: [{ content: 'one', status: 'in_progress' }] },
      {
        type: 'plan',
        entries: [
          { content: 'one', status: 'completed' },
          { content: 'two', status: 'pending' },
        ],
      },
      { type: 'usage', usage },
    );
    const model = runModel(acp, events);
    expect(model.plan).toEqual([
      { content: 'one', status: 'completed' },
      { content: 'two', status: 'pending' },
    ]);
    expect(model.usage).toEqual(usage);
    expect(
      runModel({ ...acp, usage: { ...usage, inputTokens: 99, costUsd: 0.25 } }, events).usage,
    ).toMatchObject({
      inputTokens: 99,
      costUsd: 0.25,
    });
    expect(usageWords({ ...usage, inputTokens: 1234, costUsd: 0.25 })).toBe(
      '1,234 in · 5 out · 2 cached · $0.2500',
    );
  });

  it('offers the pending prompts with their options, until a decision for one is known', () => {
    const status = {
      ...acp,
      pendingPermissions: [{ ...request('p1'), since: 'now' }, request('p2', 'call-2')],
    };
    const asked = runModel(status, entries({ type: 'permission_request', request: request('p1') }));
    expect(asked.prompts).toEqual([
      expect.objectContaining({
        requestId: 'p1',
        approve: 'allow',
        always: 'always',
        deny: 'reject',
        since: 'now',
      }),
      expect.objectContaining({ requestId: 'p2' }),
    ]);
    const decided = runModel(
      status,
      entries(
        { type: 'permission_request', request: request('p1') },
        {
          type: 'permission_decision',
          requestId: 'p1',
          decision: { outcome: 'selected', optionId: 'allow', kind: 'allow_once', by: 'operator' },
        },
      ),
    );
    expect(decided.prompts.map((p) => p.requestId)).toEqual(['p2']);
    expect(decided.blocks.at(-1)).toMatchObject({
      kind: 'decided',
      title: 'Write call-1.txt',
      words: 'allowed once by operator',
    });
    // Without any reject option the deny button falls back to a plain deny.
    const bare = runModel({ pendingPermissions: [{ ...request('p3'), options: [] }] }, []);
    expect(bare.prompts[0]).toEqual({ requestId: 'p3', toolCall: expect.any(Object) });
  });

  it('words every decision', () => {
    expect(decisionWords({ outcome: 'selected', optionId: 'r', kind: 'reject_once', by: 'timeout' })).toBe(
      'denied (timed out)',
    );
    expect(decisionWords({ outcome: 'cancelled', by: 'cancelled' })).toBe('cancelled');
    expect(decisionWords({ outcome: 'selected', optionId: 'a', kind: 'allow_always', by: 'policy' })).toBe(
      'allowed always by policy',
    );
  });
});
