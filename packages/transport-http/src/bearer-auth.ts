/** Bearer-token authentication: every configured token is compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

export interface BearerToken {
  /** The secret the client presents as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** The principal this token authenticates (kept on the peer as `attributes.principal`). */
  readonly name: string;
  /** Dispatch `ClientFilters` for this principal (kept on the peer as `attributes.filters`). */
  readonly filters?: unknown;
}

export interface Principal {
  readonly name: string;
  readonly filters: unknown;
}

export type Authenticator = (authorization: string | undefined) => Principal | undefined;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Hashing first gives equal-length inputs to timingSafeEqual, and every token is compared even
 * after a match, so timing reveals neither which token matched nor its length.
 */
export function createAuthenticator(tokens: readonly BearerToken[]): Authenticator {
  if (tokens.length === 0) throw new TypeError('auth.tokens must name at least one token');
  const entries = tokens.map((t) => {
    if (typeof t.token !== 'string' || t.token.length < 16) {
      throw new TypeError(`auth token for "${t.name}" must be a string of at least 16 characters`);
    }
    return { hash: digest(t.token), principal: { name: t.name, filters: t.filters } satisfies Principal };
  });
  return (authorization) => {
    if (authorization === undefined) return undefined;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match === null) return undefined;
    const presented = digest(match[1] as string);
    let found: Principal | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(entry.hash, presented) && found === undefined) found = entry.principal;
    }
    return found;
  };
}
