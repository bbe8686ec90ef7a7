/** A ready `verifyToken` for JWT access tokens: signature by the issuer's JWKS, issuer, audience, expiry, scopes. */
import { LocalError } from '@agentd/rpc-frame';
import type { PeerAuth } from '@agentd/server';
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { invalidOption, type TransportHttpErrorCode } from './local-errors.js';
import type { VerifyToken } from './oauth-options.js';

export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier; the `iss` claim must equal it. */
  readonly issuer: string;
  /** This resource's canonical URI (RFC 8707); the `aud` claim must contain it. */
  readonly audience: string;
  /** Where the issuer publishes its signing keys (JWKS). Either this or `jwks`. */
  readonly jwksUri?: string;
  /** A key set resolver of your own (e.g. jose's `createLocalJWKSet`). */
  readonly jwks?: JWTVerifyGetKey;
  /** Scopes every token must carry; otherwise the token is refused (403 when set on the transport instead). */
  readonly requiredScopes?: readonly string[];
  /** Accepted signing algorithms (default: the asymmetric JWS algorithms jose supports). */
  readonly algorithms?: readonly string[];
  /** Clock skew allowed on `exp`/`nbf`, in seconds (default 30). */
  readonly clockToleranceSec?: number;
}

const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

function scopesOf(payload: JWTPayload): string[] {
  const scope = payload.scope;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  const scp = payload.scp;
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  return [];
}

/** jose's verdicts on the token itself (bad signature, expired, wrong claim) versus failures to judge it. */
function isTokenVerdict(error: unknown): boolean {
  return (
    error instanceof errors.JWTExpired ||
    error instanceof errors.JWTClaimValidationFailed ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported
  );
}

/**
 * Invalid, expired, foreign-audience or under-scoped tokens resolve to `undefined` (401); an
 * unreachable JWKS endpoint throws (503). The token itself is never logged or echoed.
 */
export function createJwtVerifier(options: JwtVerifierOptions): VerifyToken {
  if (typeof options.issuer !== 'string' || options.issuer === '') throw invalidOption('issuer is required');
  if (typeof options.audience !== 'string' || options.audience === '')
    throw invalidOption('audience (this resource) is required');
  const keys =
    options.jwks ??
    (options.jwksUri === undefined ? undefined : createRemoteJWKSet(new URL(options.jwksUri)));
  if (keys === undefined) throw invalidOption('jwksUri or jwks is required');
  const required = options.requiredScopes ?? [];
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: [...(options.algorithms ?? DEFAULT_ALGORITHMS)],
    clockTolerance: options.clockToleranceSec ?? 30,
    requiredClaims: ['exp'],
  };
  return async (token): Promise<PeerAuth | undefined> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, verifyOptions));
    } catch (error) {
      if (isTokenVerdict(error)) return undefined;
      throw new LocalError<TransportHttpErrorCode>(
        'verifier_unavailable',
        'cannot verify the access token now',
        {
          cause: error,
        },
      );
    }
    const scopes = scopesOf(payload);
    if (!required.every((scope) => scopes.includes(scope))) return undefined;
    const clientId =
      typeof payload.client_id === 'string'
        ? payload.client_id
        : typeof payload.azp === 'string'
          ? payload.azp
          : undefined;
    const principal = typeof payload.sub === 'string' ? payload.sub : clientId;
    if (principal === undefined) return undefined;
    return {
      principal,
      scopes,
      scheme: 'oauth',
      ...(clientId === undefined ? {} : { clientId }),
      ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
      extra: { issuer: payload.iss },
    };
  };
}
