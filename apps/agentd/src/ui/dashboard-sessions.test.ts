import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureOperatorToken, readOperatorToken, rotateOperatorToken } from '../config/operator-token.js';
import { DashboardSessions } from './dashboard-sessions.js';

describe('dashboard sessions', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'agentd-sessions-')), 'run', 'operator-token');

  it('keeps the operator token private, and the same one across starts', () => {
    const token = ensureOperatorToken(file);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(ensureOperatorToken(file)).toBe(token);
  });

  it('trades only the operator token for a session, and honours only untampered sessions', () => {
    const sessions = new DashboardSessions(file);
    const token = readOperatorToken(file) as string;
    expect(sessions.signIn('nope')).toBeUndefined();
    expect(sessions.signIn(`${token}x`)).toBeUndefined();
    const session = sessions.signIn(token) as string;
    expect(session).toMatch(/^ads_/);
    expect(sessions.signIn(token)).not.toBe(session);
    expect(sessions.isSession(session)).toBe(true);
    expect(sessions.isSession(token)).toBe(false);
    const [nonce, mac] = session.split('.') as [string, string];
    expect(sessions.isSession(`${nonce}x.${mac}`)).toBe(false);
    expect(sessions.isSession(`${nonce}.${mac.slice(1)}`)).toBe(false);
    expect(sessions.isSession(nonce)).toBe(false);
  });

  it('rotating the token ends every session made with the old one', () => {
    const sessions = new DashboardSessions(file);
    const old = readOperatorToken(file) as string;
    const session = sessions.signIn(old) as string;
    const fresh = rotateOperatorToken(file);
    expect(fresh).not.toBe(old);
    expect(sessions.isSession(session)).toBe(false);
    expect(sessions.signIn(old)).toBeUndefined();
    expect(sessions.isSession(sessions.signIn(fresh) as string)).toBe(true);
  });
});
