/** Tests for FrameDecoder: framing rules, limits, and property tests over random chunking and bytes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from './encode-frame.js';
import { type DecodedFrame, decodeLine, FrameDecoder } from './frame-decoder.js';
import { cutPoints, message, split } from './test-support/arbitraries.js';

const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;

function decodeAll(decoder: FrameDecoder, chunks: Iterable<Uint8Array | string>): DecodedFrame[] {
  const out: DecodedFrame[] = [];
  for (const chunk of chunks) out.push(...decoder.push(chunk));
  out.push(...decoder.end());
  return out;
}

function ids(frames: DecodedFrame[]): unknown[] {
  return frames.map((f) => (f.kind === 'request' ? f.message.id : f.kind));
}

describe('FrameDecoder framing', () => {
  it('decodes several lines from one chunk', () => {
    const frames = new FrameDecoder().push(`${ping(1)}\n${ping(2)}\n`);
    expect(ids(frames)).toEqual([1, 2]);
  });

  it('holds an unfinished line until its newline arrives', () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(ping(1).slice(0, 10))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(10);
    expect(ids(decoder.push(`${ping(1).slice(10)}\n`))).toEqual([1]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('accepts \\r\\n terminators, also when the \\r and \\n arrive in different chunks', () => {
    const decoder = new FrameDecoder();
    expect(ids(decoder.push(`${ping(1)}\r\n${ping(2)}\r`))).toEqual([1]);
    expect(ids(decoder.push('\n'))).toEqual([2]);
  });

  it('skips blank and whitespace-only lines', () => {
    const frames = new FrameDecoder().push(`\n\r\n  \n\t\r\n${ping(1)}\n\n \r\n`);
    expect(ids(frames)).toEqual([1]);
  });

  it('decodes a line split inside a multi-byte UTF-8 character', () => {
    const line = Buffer.from(`{"jsonrpc":"2.0","method":"note","params":{"t":"héllo 😀 €"}}\n`);
    const cut = line.indexOf(Buffer.from('😀')) + 2;
    const decoder = new FrameDecoder();
    expect(decoder.push(line.subarray(0, cut))).toEqual([]);
    const [frame] = decoder.push(line.subarray(cut));
    expect(frame).toMatchObject({ kind: 'notification', message: { params: { t: 'héllo 😀 €' } } });
  });

  it('decodes byte by byte', () => {
    const bytes = Buffer.from(`${ping(1)}\r\n{"jsonrpc":"2.0","method":"ü"}\n`);
    const frames = decodeAll(
      new FrameDecoder(),
      [...bytes].map((b) => Uint8Array.of(b)),
    );
    expect(frames.map((f) => f.kind)).toEqual(['request', 'notification']);
  });

  it('accepts plain Uint8Arrays and does not keep a reference to the caller buffer', () => {
    const decoder = new FrameDecoder();
    const chunk = new Uint8Array(Buffer.from(ping(9).slice(0, 20)));
    decoder.push(chunk);
    chunk.fill(0x20);
    expect(ids(decoder.push(`${ping(9).slice(20)}\n`))).toEqual([9]);
  });

  it('flushes a final line without terminator on end()', () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(ping(3))).toEqual([]);
    expect(ids(decoder.end())).toEqual([3]);
    expect(decoder.end()).toEqual([]);
    expect(new FrameDecoder().end()).toEqual([]);
  });

  it('reports a line that is not JSON as -32700 with id null, and keeps decoding', () => {
    const frames = new FrameDecoder().push(`{"jsonrpc":"2.0",\n${ping(2)}\n`);
    expect(frames[0]).toEqual({ kind: 'invalid', code: -32700, reason: expect.any(String), id: null });
    expect(frames[1]?.kind).toBe('request');
  });

  it('reports JSON that is not a JSON-RPC message as -32600, and keeps decoding', () => {
    const frames = new FrameDecoder().push(`42\n"x"\nnull\n[${ping(1)}]\n{"id":1}\n${ping(2)}\n`);
    expect(frames.map((f) => (f.kind === 'invalid' ? f.code : f.kind))).toEqual([
      -32600,
      -32600,
      -32600,
      -32600,
      -32600,
      'request',
    ]);
  });

  it('reports invalid UTF-8 as -32700 instead of decoding replacement characters', () => {
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"'),
      Buffer.of(0xff, 0xfe),
      Buffer.from('"}\n'),
    ]);
    const frames = decodeAll(new FrameDecoder(), [bad, `${ping(1)}\n`]);
    expect(frames[0]).toMatchObject({
      kind: 'invalid',
      code: -32700,
      reason: expect.stringMatching(/UTF-8/),
    });
    expect(frames[1]?.kind).toBe('request');
  });

  it('reports a UTF-8 byte order mark as a parse error rather than guessing', () => {
    const [frame] = new FrameDecoder().push(`\uFEFF${ping(1)}\n`);
    expect(frame).toMatchObject({ kind: 'invalid', code: -32700 });
  });
});

describe('FrameDecoder size limit', () => {
  it('accepts a line of exactly the limit, with \\n or \\r\\n', () => {
    const line = ping(1);
    const decoder = new FrameDecoder({ maxFrameBytes: line.length });
    expect(ids(decoder.push(`${line}\n${line}\r\n`))).toEqual([1, 1]);
    expect(ids(decoder.push(`${line}\r`))).toEqual([]);
    expect(ids(decoder.push('\n'))).toEqual([1]);
    expect(decoder.closed).toBe(false);
  });

  it('reports one oversized frame for a complete long line, after the frames before it', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 64 });
    const frames = decoder.push(`${ping(1)}\n${'x'.repeat(65)}\n${ping(2)}\n`);
    expect(frames).toEqual([frames[0], { kind: 'oversized', limit: 64 }]);
    expect(decoder.closed).toBe(true);
    expect(decoder.push(`${ping(3)}\n`)).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('stops buffering as soon as an unfinished line passes the limit', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 100 });
    expect(decoder.push('x'.repeat(60))).toEqual([]);
    expect(decoder.push('x'.repeat(60))).toEqual([{ kind: 'oversized', limit: 100 }]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('never holds more than the limit plus one byte', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 10 });
    let most = 0;
    for (let i = 0; i < 12; i++) {
      decoder.push('y');
      most = Math.max(most, decoder.bufferedBytes);
    }
    expect(most).toBeLessThanOrEqual(10);
    expect(decoder.closed).toBe(true);
  });

  it('checks a held line against the limit before joining it with the next chunk', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 16 });
    decoder.push('z'.repeat(10));
    expect(decoder.push(`${'z'.repeat(1000)}\n`)).toEqual([{ kind: 'oversized', limit: 16 }]);
  });

  it('an empty chunk does not disturb a held line of exactly the limit plus its \\r', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 7 });
    expect(decoder.push('{"a":1}\r')).toEqual([]);
    expect(decoder.push(new Uint8Array(0))).toEqual([]);
    expect(decoder.push('')).toEqual([]);
    expect(decoder.closed).toBe(false);
    expect(decoder.push('\n')).toMatchObject([{ kind: 'invalid', code: -32600 }]);
  });

  it('an unterminated line over the limit at end() is oversized', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 4 });
    decoder.push('12345');
    expect(decoder.closed).toBe(true);
    const other = new FrameDecoder({ maxFrameBytes: 4 });
    other.push('1234\r');
    expect(other.end()).toMatchObject([{ kind: 'invalid' }]);
  });

  it('close() releases a held unfinished line and ignores everything after it', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 1024 });
    decoder.push('{"jsonrpc":"2.0","id":1,');
    expect(decoder.bufferedBytes).toBeGreaterThan(0);
    decoder.close();
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.closed).toBe(true);
    expect(decoder.push('"method":"ping"}\n')).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('defaults to 16 MiB and rejects a nonsensical limit', () => {
    expect(new FrameDecoder().maxFrameBytes).toBe(16 * 1024 * 1024);
    for (const maxFrameBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new FrameDecoder({ maxFrameBytes })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});

describe('decodeLine', () => {
  it('parses and classifies one line', () => {
    expect(decodeLine(ping(1)).kind).toBe('request');
    expect(decodeLine('{')).toMatchObject({ kind: 'invalid', code: -32700, id: null });
  });
});

describe('FrameDecoder properties', () => {
  const streams = fc.record({
    messages: fc.array(message, { maxLength: 12 }),
    crlf: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    blanks: fc.array(fc.constantFrom('', '\n', '\r\n', ' \n', '\t\r\n'), { minLength: 12, maxLength: 12 }),
  });

  function render(s: { messages: unknown[]; crlf: boolean[]; blanks: string[] }): Buffer {
    const text = s.messages
      .map((m, i) => `${s.blanks[i]}${JSON.stringify(m)}${s.crlf[i] ? '\r\n' : '\n'}`)
      .join('');
    return Buffer.from(text, 'utf8');
  }

  it('random chunking of a valid stream decodes identically, to the original messages', () => {
    fc.assert(
      fc.property(
        streams.chain((s) => {
          const bytes = render(s);
          return fc.tuple(fc.constant(s.messages), fc.constant(bytes), cutPoints(bytes.length));
        }),
        fc.constantFrom(undefined, 64, 300),
        ([messages, bytes, cuts], maxFrameBytes) => {
          const whole = decodeAll(new FrameDecoder(), [bytes]);
          expect(whole.map((f) => ('message' in f ? f.message : f))).toEqual(messages);
          const options = maxFrameBytes === undefined ? {} : { maxFrameBytes };
          const reference = decodeAll(new FrameDecoder(options), [bytes]);
          expect(decodeAll(new FrameDecoder(options), split(bytes, cuts))).toEqual(reference);
        },
      ),
      { numRuns: 300 },
    );
  });

  const noisyBytes = fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    fc
      .array(fc.constantFrom(...'{}[]":,\n\r 0123 true null "jsonrpc" "2.0" "id" "method" é 😀'.split('')))
      .map((parts) => Buffer.from(parts.join(''))),
    fc
      .array(fc.constantFrom(0x0a, 0x0d, 0x7b, 0x7d, 0x22, 0xc3, 0xa9, 0xf0, 0x9f, 0xff, 0x80))
      .map((b) => Buffer.from(b)),
  );

  it('random bytes in random chunks never throw, and chunking never changes the verdicts', () => {
    fc.assert(
      fc.property(
        noisyBytes.chain((bytes) => fc.tuple(fc.constant(bytes), cutPoints(bytes.length))),
        fc.integer({ min: 1, max: 64 }),
        ([bytes, cuts], maxFrameBytes) => {
          const reference = decodeAll(new FrameDecoder({ maxFrameBytes }), [bytes]);
          const chunked = decodeAll(new FrameDecoder({ maxFrameBytes }), split(bytes, cuts));
          expect(chunked).toEqual(reference);
          const oversized = chunked.findIndex((f) => f.kind === 'oversized');
          expect(oversized === -1 || oversized === chunked.length - 1).toBe(true);
          for (const frame of chunked) {
            expect(['request', 'notification', 'response', 'invalid', 'oversized']).toContain(frame.kind);
          }
        },
      ),
      { numRuns: Number(process.env.RPC_FRAME_PROPERTY_RUNS ?? 500) },
    );
  });

  it('encoder output always decodes to an equal message', () => {
    fc.assert(
      fc.property(message, (m) => {
        const frames = decodeAll(new FrameDecoder(), [encodeFrame(m)]);
        expect(frames).toHaveLength(1);
        const [frame] = frames;
        expect(frame?.kind).toBe(
          'id' in m && 'method' in m ? 'request' : 'method' in m ? 'notification' : 'response',
        );
        expect(frame && 'message' in frame ? frame.message : frame).toEqual(m);
      }),
      { numRuns: 500 },
    );
  });
});
