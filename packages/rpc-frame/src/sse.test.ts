/** Tests for SSE encoding, checked against a parser that follows the event-stream rules. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSseComment, encodeSseEvent, encodeSseMessage } from './sse.js';
import { message } from './test-support/arbitraries.js';
import { parseSse } from './test-support/sse-parser.js';

describe('encodeSseEvent', () => {
  it('writes event, id, retry and data fields and ends with a blank line', () => {
    expect(encodeSseEvent({ data: 'x', id: '7', event: 'message', retry: 1500 })).toBe(
      'event: message\nid: 7\nretry: 1500\ndata: x\n\n',
    );
    expect(encodeSseEvent({ data: '' })).toBe('data: \n\n');
  });

  it('turns every kind of line break in data into separate data lines', () => {
    expect(encodeSseEvent({ data: 'a\nb\r\nc\rd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(parseSse(encodeSseEvent({ data: 'a\r\n\nb\n' })).events[0]?.data).toBe('a\n\nb\n');
  });

  it('keeps leading spaces and colons in data', () => {
    expect(parseSse(encodeSseEvent({ data: '  : x' })).events[0]?.data).toBe('  : x');
  });

  it('refuses field values that would break the framing', () => {
    expect(() => encodeSseEvent({ data: 'x', id: 'a\nb' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => encodeSseEvent({ data: 'x', id: 'a\0b' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => encodeSseEvent({ data: 'x', event: 'a\rb' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    for (const retry of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => encodeSseEvent({ data: 'x', retry })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });

  it('any data, id and event round-trip through an event-stream parser', () => {
    const noBreak = fc.string({ unit: 'binary' }).filter((s) => !/[\r\n\0]/.test(s));
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), noBreak, noBreak, (data, id, event) => {
        const { events } = parseSse(encodeSseEvent({ data, id, event }));
        expect(events).toEqual([
          { data: data.replace(/\r\n|\r/g, '\n'), id, event: event || 'message', retry: undefined },
        ]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('encodeSseMessage', () => {
  it('encodes a JSON-RPC message as one message event, with an optional id', () => {
    const m = { jsonrpc: '2.0' as const, id: 1, result: { text: 'a\nb' } };
    expect(encodeSseMessage(m)).toBe(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    expect(encodeSseMessage(m, 's1-4')).toBe(`event: message\nid: s1-4\ndata: ${JSON.stringify(m)}\n\n`);
    expect(() => encodeSseMessage(m, 'bad\nid')).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('any message round-trips through an event-stream parser', () => {
    fc.assert(
      fc.property(message, (m) => {
        const { events } = parseSse(encodeSseMessage(m, 'e1'));
        expect(events).toHaveLength(1);
        expect(events[0]?.id).toBe('e1');
        expect(JSON.parse(events[0]?.data ?? '')).toEqual(m);
      }),
      { numRuns: 200 },
    );
  });
});

describe('encodeSseComment', () => {
  it('is a comment line clients ignore', () => {
    expect(encodeSseComment()).toBe(':\n\n');
    expect(encodeSseComment('keep-alive')).toBe(': keep-alive\n\n');
    const parsed = parseSse(encodeSseComment('a\nb') + encodeSseEvent({ data: 'x' }));
    expect(parsed.comments).toEqual(['a b']);
    expect(parsed.events.map((e) => e.data)).toEqual(['x']);
  });
});
