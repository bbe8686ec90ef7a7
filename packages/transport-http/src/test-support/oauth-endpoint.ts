/**
 * A ServerCore on real HTTP guarded as an OAuth 2.1 resource server by a local authorization
 * server (the shared jose one), with the JWT verifier pointed at this endpoint's own URL.
 */
import type { ServerCore } from '@agentd/server';
import { type AuthorizationServer, startAuthorizationServer } from '@agentd/test-support';
import { createJwtVerifier } from '../jwt.js';
import { serveHttp } from '../node.js';
import type { OAuthResourceOptions } from '../oauth-options.js';

export interface OAuthEndpoint {
  readonly as: AuthorizationServer;
  readonly http: Awaited<ReturnType<typeof serveHttp>>;
  /** The endpoint's URL, which is also the audience its tokens must name. */
  readonly resource: string;
  /** Its RFC 9728 protected-resource metadata URL. */
  readonly metadataUrl: string;
  /** Closes the endpoint, then the core, then the authorization server. */
  close(): Promise<void>;
}

/** Starts an authorization server for `client`, then serves `core` behind it with `oauth`'s rules. */
export async function serveOAuthEndpoint(
  core: ServerCore,
  client: Parameters<typeof startAuthorizationServer>[0],
  oauth: Omit<OAuthResourceOptions, 'verifyToken' | 'authorizationServers'>,
): Promise<OAuthEndpoint> {
  const as = await startAuthorizationServer(client);
  // The resource URI is this endpoint's own URL: bind first, then point the verifier at it.
  let verify: ReturnType<typeof createJwtVerifier> | undefined;
  const http = await serveHttp(core, {
    auth: {
      oauth: {
        verifyToken: (token, request) => verify?.(token, request),
        authorizationServers: [as.issuer],
        ...oauth,
      },
    },
  });
  const origin = `http://localhost:${http.address.port}`;
  const resource = `${origin}/mcp`;
  verify = createJwtVerifier({ issuer: as.issuer, audience: resource, jwksUri: as.jwksUri });
  return {
    as,
    http,
    resource,
    metadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    async close() {
      await http.close(1_000);
      await core.close();
      await as.close();
    },
  };
}
