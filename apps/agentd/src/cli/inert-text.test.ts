import { describe, expect, it } from 'vitest';
import { inert, inertJson } from './inert-text.js';

describe('inert', () => {
  it('shows escape sequences instead of passing them to the terminal', () => {
    const forged = '\u001b[1A\u001b[2K\ragentd: run run_x succeeded';
    expect(inert(forged)).toBe('^[[1A^[[2K^Magentd: run run_x succeeded');
    expect(inert('\u001b]52;c;aGk=\u0007')).toBe('^[]52;c;aGk=^G');
    expect(inert('\u001b]0;title\u001b\\')).toBe('^[]0;title^[\\');
    expect(inert('\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\')).not.toContain('\u001b');
  });

  it('keeps tab and newline, shows NUL, DEL and C1 (an 8-bit CSI too)', () => {
    expect(inert('a\tb\nc\u0000d\u007f\u009b2J')).toBe('a\tb\nc^@d^?<U+009B>2J');
  });

  it('shows bidi overrides and isolates instead of applying them', () => {
    const text = 'x\u202eevil\u202c \u2066y\u2069 \u200e\u200f\u061c';
    expect(inert(text)).toBe('x<U+202E>evil<U+202C> <U+2066>y<U+2069> <U+200E><U+200F><U+061C>');
  });

  it('passes SGR colours only when asked, and resets them after', () => {
    const red = '\u001b[31mred\u001b[0m';
    expect(inert(red)).toBe('^[[31mred^[[0m');
    expect(inert(red, { colours: true })).toBe(`${red}\u001b[0m`);
    // Colours on, but a cursor move or an OSC is still shown, not applied.
    expect(inert('\u001b[1A\u001b[32mok', { colours: true })).toBe('^[[1A\u001b[32mok\u001b[0m');
  });

  it('leaves ordinary text (and astral characters) as it is', () => {
    const text = 'héllo — 日本 🎉 "q" \\';
    expect(inert(text)).toBe(text);
  });
});

describe('inertJson', () => {
  it('escapes what JSON leaves raw, and stays the same JSON value', () => {
    const value = { s: 'a\u009bb\u202ec\u2028' };
    const text = inertJson(JSON.stringify(value));
    expect(text).not.toMatch(/[\u0080-\u009f\u202e\u2028]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
