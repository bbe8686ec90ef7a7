import { describe, expect, it } from 'vitest';
import { decodeHeaderValue } from './header-value.js';

const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('decodeHeaderValue', () => {
  it('passes plain visible ASCII through unchanged', () => {
    expect(decodeHeaderValue('tools/call')).toBe('tools/call');
    expect(decodeHeaderValue('test://template/123/data')).toBe('test://template/123/data');
    expect(decodeHeaderValue('a b')).toBe('a b');
  });

  it('decodes the base64 sentinel form to UTF-8', () => {
    expect(decodeHeaderValue(b64('héllo wörld'))).toBe('héllo wörld');
    expect(decodeHeaderValue(b64(' leading space'))).toBe(' leading space');
    expect(decodeHeaderValue(b64('=?base64?literal?='))).toBe('=?base64?literal?=');
  });

  it('refuses control characters, surrounding spaces and broken base64', () => {
    expect(decodeHeaderValue(' padded')).toBeUndefined();
    expect(decodeHeaderValue('tab\there')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?not base64!?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?abc?=')).toBeUndefined();
    // Invalid UTF-8 inside the sentinel.
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`)).toBeUndefined();
  });
});
