/** Who is calling: a static bearer token, a verified OAuth access token, or nobody (401/403/503). */
import { type Refusal, refuse } from '@agentd/lifecycle';
import { errorFields, type Logger } from '@agentd/rpc-frame';
import type { PeerAuth } from '@agentd/server';
import { type BearerToken, bearerTokenOf, createAuthenticator, type Principal } from './bearer-auth.js';
import type { HttpIncoming } from './http-io.js';
import { invalidOption } from './local-errors.js';
import type { OAuthResourceOptions } from './oauth-options.js';
import { bearerChallenge, metadataUrlOf, resourceOf } from './protected-resource.js';

export interface AuthOptions {
  /** Static bearer tokens, compared in constant time. */
  readonly tokens?: readonly BearerToken[];
  /** OAuth 2.1 resource server: access tokens checked by `verifyToken`, RFC 9728 metadata served. */
  readonly oauth?: OAuthResourceOptions;
}

type AuthOutcome =
  | { readonly kind: 'ok'; readonly principal: Principal }
  | { readonly kind: 'refused'; readonly refusal: Refusal; readonly challenge: string | undefined };

export interface AuthGate {
  readonly oauth: OAuthResourceOptions | undefined;
  check(incoming: HttpIncoming, endpointPath: string): Promise<AuthOutcome>;
}

/**
 * The step-up challenge (403 `insufficient_scope`): the scopes the call needs plus the ones every
 * request needs, so a client re-authorizing with exactly these keeps access to the endpoint.
 */
export function scopeChallenge(
  gate: AuthGate | undefined,
  incoming: HttpIncoming,
  endpointPath: string,
  scopes: readonly string[],
): string {
  const oauth = gate?.oauth;
  const metadata =
    oauth === undefined ? undefined : metadataUrlOf(resourceOf(oauth, incoming.url(), endpointPath));
  return bearerChallenge({
    error: 'insufficient_scope',
    scope: [...new Set([...(oauth?.requiredScopes ?? []), ...scopes])],
    resourceMetadata: metadata,
  });
}

function refused(refusal: Refusal, challenge: string | undefined): AuthOutcome & { kind: 'refused' } {
  return { kind: 'refused', refusal, challenge };
}

function missingScopes(auth: PeerAuth, required: readonly string[] | undefined): string[] {
  if (required === undefined) return [];
  const granted = new Set(auth.scopes);
  return required.filter((scope) => !granted.has(scope));
}

/** Undefined when neither tokens nor OAuth are configured: every peer is then anonymous. */
export function createAuthGate(options: AuthOptions | undefined, logger: Logger): AuthGate | undefined {
  const tokens = options?.tokens;
  const oauth = options?.oauth;
  if (tokens === undefined && oauth === undefined) return undefined;
  if (oauth !== undefined) {
    if (typeof oauth.verifyToken !== 'function')
      throw invalidOption('auth.oauth.verifyToken must be a function');
    if (oauth.authorizationServers.length === 0)
      throw invalidOption('auth.oauth.authorizationServers must name at least one issuer');
  }
  const matchToken = tokens === undefined ? undefined : createAuthenticator(tokens);
  return {
    oauth,
    async check(incoming, endpointPath) {
      const metadata =
        oauth === undefined ? undefined : metadataUrlOf(resourceOf(oauth, incoming.url(), endpointPath));
      const token = bearerTokenOf(incoming.headers.get('authorization'));
      if (token === undefined) {
        return refused(refuse.unauthorized(), bearerChallenge({ resourceMetadata: metadata }));
      }
      const matched = matchToken === undefined ? undefined : await matchToken(token);
      if (matched !== undefined) return { kind: 'ok', principal: matched };
      if (oauth === undefined)
        return refused(refuse.unauthorized(), bearerChallenge({ error: 'invalid_token' }));
      let auth: PeerAuth | undefined;
      try {
        auth = await oauth.verifyToken(token, { headers: incoming.headers, url: incoming.url() });
      } catch (thrown) {
        // The verifier could not judge the token (authorization server unreachable): not the client's fault.
        logger.warn('access token verification failed', errorFields(thrown));
        return refused(refuse.authUnavailable(), undefined);
      }
      if (auth === undefined) {
        return refused(
          refuse.unauthorized(),
          bearerChallenge({ error: 'invalid_token', resourceMetadata: metadata }),
        );
      }
      const missing = missingScopes(auth, oauth.requiredScopes);
      if (missing.length > 0) {
        return refused(
          refuse.insufficientScope(),
          bearerChallenge({
            error: 'insufficient_scope',
            scope: oauth.requiredScopes,
            resourceMetadata: metadata,
          }),
        );
      }
      return { kind: 'ok', principal: { auth, filters: undefined } };
    },
  };
}
