/** Static bearer tokens: every configured token is compared in constant time (Web Crypto, any runtime). */
import type { PeerAuth } from '@agentd/server';
import { invalidOption } from './local-errors.js';

export interface BearerToken {
  /** The secret the client presents as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** The principal this token authenticates (`peer.auth.principal`, also `attributes.principal`). */
  readonly name: string;
  /** Dispatch `ClientFilters` for this principal (kept on the peer as `attributes.filters`). */
  readonly filters?: unknown;
}

export interface Principal {
  readonly auth: PeerAuth;
  readonly filters: unknown;
}

/** Resolves to the token's principal, or undefined when no configured token matches. */
export type Authenticator = (token: string) => Promise<Principal | undefined>;

const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

/** Equal-length (32-byte digest) comparison whose time does not depend on where bytes differ. */
function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  let diff = 0;
  for (let i = 0; i < 32; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * Hashing first gives equal-length inputs to the comparison, and every token is compared even
 * after a match, so timing reveals neither which token matched nor its length.
 */
export function createAuthenticator(tokens: readonly BearerToken[]): Authenticator {
  if (tokens.length === 0) throw invalidOption('auth.tokens must name at least one token');
  for (const t of tokens) {
    if (typeof t.token !== 'string' || t.token.length < 16) {
      throw invalidOption(`auth token for "${t.name}" must be a string of at least 16 characters`);
    }
  }
  const entries = Promise.all(
    tokens.map(async (t) => ({
      hash: await digest(t.token),
      principal: {
        auth: { principal: t.name, scopes: [], scheme: 'token' },
        filters: t.filters,
      } satisfies Principal,
    })),
  );
  return async (token) => {
    const presented = await digest(token);
    let found: Principal | undefined;
    for (const entry of await entries) {
      if (equalDigests(entry.hash, presented) && found === undefined) found = entry.principal;
    }
    return found;
  };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerTokenOf(authorization: string | null | undefined): string | undefined {
  if (authorization === undefined || authorization === null) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match === null ? undefined : match[1];
}
