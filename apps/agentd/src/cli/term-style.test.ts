import { describe, expect, it } from 'vitest';
import { paintState, termStyle } from './term-style.js';

describe('termStyle', () => {
  it('is interactive and coloured only on a terminal', () => {
    expect(termStyle({ TERM: 'xterm' }, true, true)).toEqual({
      interactive: true,
      colourOut: true,
      colourErr: true,
    });
    // `agentd spawn x > out.txt`: the answer is plain, the terminal still gets colour on stderr.
    expect(termStyle({ TERM: 'xterm' }, false, true)).toEqual({
      interactive: false,
      colourOut: false,
      colourErr: true,
    });
    expect(termStyle({}, false, false)).toEqual({ interactive: false, colourOut: false, colourErr: false });
  });

  it('respects NO_COLOR (when not empty) and TERM=dumb', () => {
    expect(termStyle({ NO_COLOR: '1' }, true, true)).toMatchObject({ interactive: true, colourOut: false });
    expect(termStyle({ NO_COLOR: '' }, true, true)).toMatchObject({ colourOut: true });
    expect(termStyle({ TERM: 'dumb' }, true, true)).toMatchObject({ interactive: true, colourErr: false });
  });

  it('paints states by outcome', () => {
    expect(paintState(true, 'succeeded')).toBe('\u001b[32msucceeded\u001b[0m');
    expect(paintState(true, 'timed_out')).toBe('\u001b[31mtimed_out\u001b[0m');
    expect(paintState(true, 'cancelled', 'cancelled  ')).toBe('\u001b[33mcancelled  \u001b[0m');
    expect(paintState(false, 'failed')).toBe('failed');
  });
});
