/** canonicalizeUri: equivalent spellings share one key, different resources do not. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeUri } from './canonical-uri.js';

describe('canonicalizeUri', () => {
  it.each([
    ['  agent://status  ', 'agent://status'],
    ['AGENT://Status/', 'agent://status'],
    ['agent://status//', 'agent://status'],
    ['agent://run/42/', 'agent://run/42'],
    ['agent://run/./a/../42', 'agent://run/42'],
    ['agent://run/%7e%41%2f', 'agent://run/~A%2F'],
    ['HTTP://Example.COM:/a/b/', 'http://example.com/a/b'],
    ['http://User@Example.com/x', 'http://User@example.com/x'],
    ['file:///', 'file:///'],
    ['file:///dir/', 'file:///dir'],
    ['urn:Example:Thing', 'urn:Example:Thing'],
    ['test://a/b?Q=1#Frag', 'test://a/b?Q=1#Frag'],
    ['not a uri', 'not a uri'],
  ])('%s -> %s', (input, expected) => {
    expect(canonicalizeUri(input)).toBe(expected);
  });

  it('keeps distinct resources distinct', () => {
    expect(canonicalizeUri('agent://run/1')).not.toBe(canonicalizeUri('agent://run/10'));
    expect(canonicalizeUri('agent://run/1')).not.toBe(canonicalizeUri('agent://run/1/x'));
    expect(canonicalizeUri('test://a/B')).not.toBe(canonicalizeUri('test://a/b'));
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string()), (uri) => {
        const once = canonicalizeUri(uri);
        expect(canonicalizeUri(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});
