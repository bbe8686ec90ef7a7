import { describe, expect, it } from 'vitest';
import { nearestName } from './nearest-name.js';

describe('nearestName', () => {
  const keys = ['defaultAgent', 'logLevel', 'exposure', 'limits', 'serve'];

  it('suggests the key a typo most likely meant, ignoring case', () => {
    expect(nearestName('defaltAgent', keys)).toBe('defaultAgent');
    expect(nearestName('defaultagent', keys)).toBe('defaultAgent');
    expect(nearestName('loglevl', keys)).toBe('logLevel');
    expect(nearestName('serv', keys)).toBe('serve');
  });

  it('guesses nothing when no key is close', () => {
    expect(nearestName('zzz', keys)).toBeUndefined();
    expect(nearestName('agents', ['serve'])).toBeUndefined();
    expect(nearestName('x', [])).toBeUndefined();
  });
});
