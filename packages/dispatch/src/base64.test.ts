/** The pure base64 codec held to Node's Buffer. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, pureBase64, toBase64, toBase64Url } from './base64.js';

const LENGTHS = [0, 1, 2, 3, 4, 5, 63, 64, 65, 1000];
for (let i = 0; i < 20; i++) LENGTHS.push(Math.floor(Math.random() * 10_240));

describe('base64', () => {
  it.each(LENGTHS)('encodes and decodes %i random bytes as Buffer does', (length) => {
    const bytes = new Uint8Array(randomBytes(length));
    const buffer = Buffer.from(bytes);
    expect(pureBase64.toBase64(bytes)).toBe(buffer.toString('base64'));
    expect(pureBase64.toBase64Url(bytes)).toBe(buffer.toString('base64url'));
    expect(pureBase64.fromBase64Url(buffer.toString('base64url'))).toEqual(bytes);
    expect(pureBase64.fromBase64Url(buffer.toString('base64'))).toEqual(bytes);
    expect(toBase64(bytes)).toBe(pureBase64.toBase64(bytes));
    expect(toBase64Url(bytes)).toBe(pureBase64.toBase64Url(bytes));
    expect(new Uint8Array(fromBase64Url(toBase64Url(bytes)))).toEqual(bytes);
  });

  it('decodes malformed text leniently, like Buffer', () => {
    for (const text of ['a', 'ab', 'abcde', 'ab!cd', 'ab==cd', 'YW Jj', 'é_-+/']) {
      expect(pureBase64.fromBase64Url(text), text).toEqual(new Uint8Array(Buffer.from(text, 'base64url')));
    }
  });
});
