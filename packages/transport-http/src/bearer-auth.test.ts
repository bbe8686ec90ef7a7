import { describe, expect, it } from 'vitest';
import { createAuthenticator } from './bearer-auth.js';

describe('createAuthenticator', () => {
  const authenticate = createAuthenticator([
    { token: 'alpha-token-0123456789', name: 'alice', filters: { visible: { deny: ['command_*'] } } },
    { token: 'bravo-token-0123456789', name: 'bob' },
  ]);

  it('maps each token to its principal and filters', () => {
    expect(authenticate('Bearer alpha-token-0123456789')).toEqual({
      name: 'alice',
      filters: { visible: { deny: ['command_*'] } },
    });
    expect(authenticate('bearer bravo-token-0123456789')?.name).toBe('bob');
  });

  it('refuses missing, malformed, wrong and prefix tokens', () => {
    expect(authenticate(undefined)).toBeUndefined();
    expect(authenticate('Basic YWxhZGRpbjpvcGVu')).toBeUndefined();
    expect(authenticate('Bearer')).toBeUndefined();
    expect(authenticate('Bearer alpha-token-012345678')).toBeUndefined();
    expect(authenticate('Bearer alpha-token-0123456789x')).toBeUndefined();
  });

  it('rejects empty token lists and short tokens at construction', () => {
    expect(() => createAuthenticator([])).toThrow(/at least one/);
    expect(() => createAuthenticator([{ token: 'short', name: 'x' }])).toThrow(/16 characters/);
  });
});
