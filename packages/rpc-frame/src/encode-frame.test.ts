/** Tests for encodeFrame: compact, exactly one line, decodable. */
import { describe, expect, it } from 'vitest';
import { encodeFrame } from './encode-frame.js';
import { decodeLine } from './frame-decoder.js';

describe('encodeFrame', () => {
  it('writes compact JSON and one trailing newline', () => {
    expect(encodeFrame({ jsonrpc: '2.0', id: 1, result: { a: [1, 2] } })).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}\n',
    );
  });

  it('escapes line breaks inside strings so the frame stays one line', () => {
    const frame = encodeFrame({ jsonrpc: '2.0', method: 'n', params: { t: 'a\nb\r\nc\u2028' } });
    expect(frame.indexOf('\n')).toBe(frame.length - 1);
    expect(frame).not.toContain('\r');
    expect(decodeLine(frame.slice(0, -1))).toMatchObject({
      kind: 'notification',
      message: { params: { t: 'a\nb\r\nc\u2028' } },
    });
  });

  it('writes lone surrogates as escapes, so the output is valid UTF-8', () => {
    const frame = encodeFrame({ jsonrpc: '2.0', method: 'n', params: { t: '\ud800' } });
    expect(frame).toContain('\\ud800');
    expect(Buffer.from(frame).toString('utf8')).toBe(frame);
  });

  it('drops undefined members, as JSON does', () => {
    expect(encodeFrame({ jsonrpc: '2.0', method: 'n', params: { a: undefined } })).toBe(
      '{"jsonrpc":"2.0","method":"n","params":{}}\n',
    );
  });
});
