import { describe, expect, it } from 'vitest';
import { bearerTokenOf, createAuthenticator } from './bearer-auth.js';

describe('createAuthenticator', () => {
  const authenticate = createAuthenticator([
    { token: 'alpha-token-0123456789', name: 'alice', filters: { visible: { deny: ['command_*'] } } },
    { token: 'bravo-token-0123456789', name: 'bob' },
  ]);

  it('maps each token to its principal and filters', async () => {
    expect(await authenticate('alpha-token-0123456789')).toEqual({
      auth: { principal: 'alice', scopes: [], scheme: 'token' },
      filters: { visible: { deny: ['command_*'] } },
    });
    expect((await authenticate('bravo-token-0123456789'))?.auth.principal).toBe('bob');
  });

  it('refuses wrong and prefix tokens', async () => {
    expect(await authenticate('alpha-token-012345678')).toBeUndefined();
    expect(await authenticate('alpha-token-0123456789x')).toBeUndefined();
    expect(await authenticate('')).toBeUndefined();
  });

  it('reads only well-formed Bearer headers', () => {
    expect(bearerTokenOf('Bearer abc')).toBe('abc');
    expect(bearerTokenOf('bearer  abc ')).toBe('abc');
    expect(bearerTokenOf(undefined)).toBeUndefined();
    expect(bearerTokenOf(null)).toBeUndefined();
    expect(bearerTokenOf('Basic YWxhZGRpbjpvcGVu')).toBeUndefined();
    expect(bearerTokenOf('Bearer')).toBeUndefined();
    expect(bearerTokenOf('Bearer a b')).toBeUndefined();
  });

  it('rejects empty token lists and short tokens at construction', () => {
    expect(() => createAuthenticator([])).toThrow(/at least one/);
    expect(() => createAuthenticator([{ token: 'short', name: 'x' }])).toThrow(/16 characters/);
  });
});
