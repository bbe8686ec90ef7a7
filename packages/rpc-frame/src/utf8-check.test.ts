/** The UTF-8 check the frame decoder uses: Node's native one here, the same answers as a fatal TextDecoder. */
import { describe, expect, it } from 'vitest';
import { isUtf8 } from './utf8-check.js';

const bytes = (...b: number[]) => new Uint8Array(b);

describe('isUtf8', () => {
  it('accepts valid text and refuses broken sequences, as a fatal TextDecoder does', () => {
    const cases = [
      new TextEncoder().encode('plain ascii'),
      new TextEncoder().encode('é 漢字 🚀'),
      bytes(0xc3), // a cut two-byte character
      bytes(0xff, 0x41),
      bytes(0xed, 0xa0, 0x80), // a UTF-16 surrogate encoded
      bytes(0xc0, 0xaf), // an overlong '/'
      bytes(),
    ];
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const reference = (b: Uint8Array) => {
      try {
        decoder.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    expect(cases.map(isUtf8)).toEqual(cases.map(reference));
    expect(cases.map(isUtf8)).toEqual([true, true, false, false, false, false, true]);
  });
});
