/**
 * Dashboard sessions: the page trades the local operator token (from `agentd ui`) for a session
 * token it keeps in its tab and sends as a bearer token. A session is `ads_<nonce>.<HMAC of the
 * nonce under the operator token>`: nothing to store, it survives a daemon restart, and rotating
 * the operator token ends every session. Every comparison is constant-time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { readOperatorToken } from '../config/operator-token.js';

const PREFIX = 'ads_';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Hashing first gives equal lengths, so the time says nothing about where or how long they differ. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

export class DashboardSessions {
  #cached: { key: string; token: string | undefined } | undefined;

  constructor(readonly tokenFile: string) {}

  /** The current operator token, re-read when the file changes (`agentd ui --rotate`). */
  #token(): string | undefined {
    let key: string;
    try {
      const stats = statSync(this.tokenFile);
      key = `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
    } catch {
      this.#cached = undefined;
      return undefined;
    }
    if (this.#cached?.key !== key) this.#cached = { key, token: readOperatorToken(this.tokenFile) };
    return this.#cached.token;
  }

  /** A new session for the holder of the operator token; undefined when the candidate is not it. */
  signIn(candidate: string): string | undefined {
    const token = this.#token();
    if (token === undefined || !sameSecret(candidate, token)) return undefined;
    const nonce = randomBytes(18).toString('base64url');
    return `${PREFIX}${nonce}.${createHmac('sha256', token).update(nonce).digest('base64url')}`;
  }

  /** Whether a bearer token is a dashboard session made with the current operator token. */
  isSession(candidate: string): boolean {
    if (!candidate.startsWith(PREFIX)) return false;
    const token = this.#token();
    const dot = candidate.indexOf('.');
    if (token === undefined || dot === -1) return false;
    const nonce = candidate.slice(PREFIX.length, dot);
    const expected = createHmac('sha256', token).update(nonce).digest('base64url');
    return sameSecret(candidate.slice(dot + 1), expected);
  }
}
