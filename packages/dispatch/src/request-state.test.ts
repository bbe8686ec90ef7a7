/** Units: the requestState codec, list cursors and JSON Schema to TypeScript rendering. */
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { digestOf, RequestStateCodec } from './request-state.js';

const binding = {
  method: 'tools/call',
  name: 't',
  argumentsDigest: digestOf({ a: 1, b: [2] }),
  principal: 'management:',
};

describe('RequestStateCodec', () => {
  it('round-trips responses and outstanding keys', () => {
    const codec = new RequestStateCodec({ key: 'x'.repeat(32) });
    const token = codec.seal(binding, { responses: { a: { action: 'accept' } }, outstanding: ['b'] });
    expect(codec.open(token, binding)).toEqual({
      responses: { a: { action: 'accept' } },
      outstanding: ['b'],
    });
  });

  it('digests arguments canonically (key order does not matter)', () => {
    expect(digestOf({ b: [2], a: 1 })).toBe(binding.argumentsDigest);
    expect(digestOf({ a: 2, b: [2] })).not.toBe(binding.argumentsDigest);
  });

  it('refuses states sealed with another key, bound elsewhere, expired, or malformed', () => {
    let now = 0;
    const codec = new RequestStateCodec({ key: 'x'.repeat(32), ttlMs: 100, now: () => now });
    const other = new RequestStateCodec({ key: 'y'.repeat(32) });
    const token = codec.seal(binding, { responses: {}, outstanding: [] });
    expect(() => other.open(token, binding)).toThrow(/failed verification/);
    expect(() => codec.open(token, { ...binding, method: 'prompts/get' })).toThrow(/does not belong/);
    expect(() => codec.open(token, { ...binding, principal: 'stdio:' })).toThrow(/does not belong/);
    for (const bad of ['', 'abc', '.', `${token}x`, 42, null])
      expect(() => codec.open(bad, binding)).toThrow(/requestState/);
    now = 101;
    expect(() => codec.open(token, binding)).toThrow(/expired/);
    expect(() => new RequestStateCodec({ key: 'short' })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
  });
});

describe('cursors', () => {
  it('round-trip per list and reject foreign ones', () => {
    expect(decodeCursor('tools', encodeCursor('tools', 'abc'))).toBe('abc');
    expect(decodeCursor('tools', undefined)).toBeUndefined();
    expect(() => decodeCursor('prompts', encodeCursor('tools', 'abc'))).toThrow('Invalid cursor');
  });
});
