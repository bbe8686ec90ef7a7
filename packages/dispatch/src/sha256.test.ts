/** The pure SHA-256/HMAC held to node:crypto and to the FIPS 180-4 and RFC 4231 vectors. */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, pureHashing, pureHmacSha256, pureSha256, sha256 } from './sha256.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const fromHex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
const ascii = (text: string) => new TextEncoder().encode(text);

const LENGTHS = [0, 1, 2, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000];
for (let i = 0; i < 40; i++) LENGTHS.push(Math.floor(Math.random() * 10_240));

describe('pure SHA-256', () => {
  it('matches the FIPS 180-4 examples', () => {
    expect(hex(pureSha256(ascii('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hex(pureSha256(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hex(pureSha256(new Uint8Array(0)))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(hex(pureSha256(new Uint8Array(1_000_000).fill(0x61)))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it.each(LENGTHS)('matches node:crypto on %i random bytes', (length) => {
    const data = new Uint8Array(randomBytes(length));
    expect(hex(pureSha256(data))).toBe(createHash('sha256').update(data).digest('hex'));
  });
});

describe('pure HMAC-SHA256', () => {
  // RFC 4231 §4.2-4.8 (case 5 truncates its output, so it is checked on the prefix).
  const CASES: Array<[key: Uint8Array, data: Uint8Array, mac: string]> = [
    [
      new Uint8Array(20).fill(0x0b),
      ascii('Hi There'),
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    ],
    [
      ascii('Jefe'),
      ascii('what do ya want for nothing?'),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    ],
    [
      new Uint8Array(20).fill(0xaa),
      new Uint8Array(50).fill(0xdd),
      '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
    ],
    [
      fromHex('0102030405060708090a0b0c0d0e0f10111213141516171819'),
      new Uint8Array(50).fill(0xcd),
      '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
    ],
    [
      new Uint8Array(131).fill(0xaa),
      ascii('Test Using Larger Than Block-Size Key - Hash Key First'),
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    ],
    [
      new Uint8Array(131).fill(0xaa),
      ascii(
        'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
      ),
      '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    ],
  ];

  it.each(CASES.map((c, i) => [i + 1, ...c] as const))('matches RFC 4231 case %i', (_, key, data, mac) => {
    expect(hex(pureHmacSha256(key, data))).toBe(mac);
  });

  it('matches RFC 4231 case 5 (truncated to 128 bits)', () => {
    const mac = pureHmacSha256(new Uint8Array(20).fill(0x0c), ascii('Test With Truncation'));
    expect(hex(mac).slice(0, 32)).toBe('a3b6167473100ee06e0c796c2955552b');
  });

  it.each(LENGTHS)('matches node:crypto on %i random bytes under random keys', (length) => {
    const key = new Uint8Array(randomBytes(1 + (length % 150)));
    const data = new Uint8Array(randomBytes(length));
    expect(hex(pureHmacSha256(key, data))).toBe(createHmac('sha256', key).update(data).digest('hex'));
  });
});

describe('sha256 and hmacSha256', () => {
  it('give the same text on the native and the pure path, strings as UTF-8', () => {
    const key = new Uint8Array(randomBytes(32));
    for (const data of ['', 'agentd-mrtr.v1.abc', 'ünïcödé ✓ 🎉', new Uint8Array(randomBytes(777))]) {
      for (const encoding of ['hex', 'base64url'] as const) {
        expect(sha256(data, encoding)).toBe(pureHashing.sha256(data, encoding));
        expect(hmacSha256(key, data, encoding)).toBe(pureHashing.hmacSha256(key, data, encoding));
      }
    }
    expect(sha256('ünïcödé', 'base64url')).toBe(createHash('sha256').update('ünïcödé').digest('base64url'));
  });
});
