/** ByteTail keeps exactly the last N bytes, across chunk boundaries. */
import { describe, expect, it } from 'vitest';
import { ByteTail } from './byte-tail.js';

describe('ByteTail', () => {
  it('keeps everything under the limit', () => {
    const tail = new ByteTail(10);
    tail.push(Buffer.from('abc'));
    tail.push(Buffer.from('def'));
    expect(tail.text()).toBe('abcdef');
  });

  it('keeps the last bytes across chunks and marks the cut', () => {
    const tail = new ByteTail(5);
    for (const chunk of ['abc', 'defg', 'hi']) tail.push(Buffer.from(chunk));
    expect(tail.text()).toBe('…efghi');
  });

  it('handles one chunk larger than the limit', () => {
    const tail = new ByteTail(4);
    tail.push(Buffer.from('0123456789'));
    expect(tail.text()).toBe('…6789');
    tail.push(Buffer.from('ab'));
    expect(tail.text()).toBe('…89ab');
  });

  it('keeps nothing with a zero limit', () => {
    const tail = new ByteTail(0);
    tail.push(Buffer.from('abc'));
    expect(tail.text()).toBe('');
  });
});
