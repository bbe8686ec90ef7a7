/** OAuth 2.1 resource-server options (MCP authorization, 2025-11-25 and 2026-07-28). */
import type { PeerAuth } from '@agentd/server';
import type { HeaderReader } from './http-io.js';

/** What a token verifier may look at besides the token. */
export interface TokenRequest {
  readonly headers: HeaderReader;
  /** Absolute URL of the request. */
  readonly url: string;
}

/**
 * Resolves to the peer's authentication for a valid access token, or `undefined` for an
 * invalid, expired or foreign one (answered 401 `invalid_token`). Throw only when the token
 * cannot be judged now (authorization server unreachable): that is answered 503.
 */
export type VerifyToken = (
  token: string,
  request: TokenRequest,
) => PeerAuth | undefined | Promise<PeerAuth | undefined>;

export interface OAuthResourceOptions {
  readonly verifyToken: VerifyToken;
  /** Issuer URLs of the authorization servers clients should use (RFC 9728 `authorization_servers`). */
  readonly authorizationServers: readonly string[];
  /**
   * This resource's canonical URI (RFC 8707), the audience tokens must be issued for, e.g.
   * `https://mcp.example.com/mcp`. Default: the request's origin plus the endpoint path.
   */
  readonly resource?: string;
  /** Scopes every request needs; a valid token without them gets 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[];
  /** Advertised in the metadata (`scopes_supported`); default `requiredScopes`. */
  readonly scopesSupported?: readonly string[];
  /** Human-readable name (`resource_name`). */
  readonly resourceName?: string;
  /** A page documenting this resource (`resource_documentation`). */
  readonly resourceDocumentation?: string;
}
