import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Js, encodeLine, scanLines } from './line-codec.js';

describe('store lines', () => {
  it('the JavaScript CRC-32 is zlib’s, on any bytes and any slice', () => {
    const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
    const known = Buffer.from('123456789');
    expect(crc32Js(known, 0, known.length)).toBe(0xcbf43926);
    for (const size of [0, 1, 7, 300, 5000]) {
      const bytes = randomBytes(size + 4);
      const sum = crc32Js(bytes, 2, size + 2);
      if (nativeCrc32 !== undefined) expect(sum).toBe(nativeCrc32(bytes.subarray(2, size + 2)));
    }
  });

  it('a line is `<crc32 hex> <json>\\n`, and reads back whole; a damaged one does not', () => {
    const json = JSON.stringify({ seq: 1, text: 'héllo ✓ 𝄞' });
    const line = encodeLine(json);
    const body = Buffer.from(json, 'utf8');
    expect(line.toString('utf8')).toBe(
      `${crc32Js(body, 0, body.length).toString(16).padStart(8, '0')} ${json}\n`,
    );
    const two = Buffer.concat([line, encodeLine('{"seq":2}')]);
    expect(scanLines(two, 100).lines.map((l) => [l.offset, l.json])).toEqual([
      [100, json],
      [100 + line.length, '{"seq":2}'],
    ]);
    const damaged = Buffer.from(two);
    damaged[12] = 0x41;
    expect(scanLines(damaged, 0)).toMatchObject({ damaged: 1, lines: [{ json: '{"seq":2}' }] });
  });
});
