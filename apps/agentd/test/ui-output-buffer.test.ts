/** The page's output buffer: streamed lines and successive live tails fold into one bounded stream, gaps marked. */
import { describe, expect, it } from 'vitest';
import { OutputBuffer, type OutputLine } from '../ui/src/output-buffer.js';

const out = (...texts: string[]): OutputLine[] => texts.map((text) => ({ stream: 'stdout', text }));
const texts = (buffer: OutputBuffer) => buffer.lines.map((l) => (l.stream === 'gap' ? '…' : l.text));

describe('OutputBuffer', () => {
  it('appends only the new lines of a growing, then sliding, tail', () => {
    const buffer = new OutputBuffer();
    expect(buffer.merge(out('a', 'b'))).toBe(true);
    expect(buffer.merge(out('a', 'b'))).toBe(false);
    buffer.merge(out('a', 'b', 'c'));
    buffer.merge(out('b', 'c', 'd', 'e'));
    expect(texts(buffer)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps repeated lines and stderr apart from stdout', () => {
    const buffer = new OutputBuffer();
    buffer.merge(out('x', 'x'));
    buffer.merge([...out('x', 'x', 'x'), { stream: 'stderr', text: 'x' }]);
    expect(buffer.lines.map((l) => l.stream)).toEqual(['stdout', 'stdout', 'stdout', 'stderr']);
  });

  it('marks lines it never saw, and keeps only the newest lines', () => {
    const buffer = new OutputBuffer(4);
    buffer.merge(out('1', '2'));
    buffer.merge(out('7', '8', '9'));
    expect(texts(buffer)).toEqual(['…', '7', '8', '9']);
    const before = buffer.version;
    buffer.merge(out('8', '9', '10'));
    expect(texts(buffer)).toEqual(['7', '8', '9', '10']);
    expect(buffer.version).toBeGreaterThan(before);
  });

  it('lines a tail up against streamed lines: a late tail adds nothing, a newer one only what is new', () => {
    const buffer = new OutputBuffer();
    for (const line of out('a', 'b', 'c', 'd')) buffer.push(line);
    // Read before the last streamed lines arrived: all of it is shown already.
    expect(buffer.merge(out('a', 'b'))).toBe(false);
    expect(buffer.merge(out('b', 'c', 'd'))).toBe(false);
    expect(buffer.merge(out('c', 'd', 'e'))).toBe(true);
    expect(texts(buffer)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('starts over on reset, and says so through its version', () => {
    const buffer = new OutputBuffer();
    buffer.merge(out('a', 'b'));
    const before = buffer.version;
    buffer.reset();
    expect(buffer.lines).toEqual([]);
    expect(buffer.version).toBeGreaterThan(before);
    // A fresh buffer has nothing to have skipped.
    buffer.merge(out('c'));
    expect(texts(buffer)).toEqual(['c']);
  });
});
