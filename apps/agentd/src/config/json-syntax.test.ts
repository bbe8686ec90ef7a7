import { describe, expect, it } from 'vitest';
import { describeJsonError } from './json-syntax.js';

function errorOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return describeJsonError(text, error);
  }
  throw new Error('expected invalid JSON');
}

describe('describeJsonError', () => {
  it('finds the line and column even where V8 gives no position', () => {
    // Node 20 reports this one without a position, and echoes the whole text.
    expect(errorOf('{\n  "a": 1,\n  "b": }')).toBe("line 3, column 8: unexpected token '}'");
    expect(errorOf('{\n  "a": 1\n  "b": 2\n}')).toBe(
      "line 3, column 3: expected ',' or '}' after property value",
    );
    expect(errorOf('{\n  "a": [1, 2,]\n}')).toBe("line 2, column 14: unexpected token ']'");
  });

  it('puts an unfinished document at its end', () => {
    expect(errorOf('{\n  "a": 1')).toMatch(/^line 2, column 9: /);
    expect(errorOf('')).toBe('line 1, column 1: unexpected end of JSON input');
  });
});
