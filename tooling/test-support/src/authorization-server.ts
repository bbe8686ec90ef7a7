/**
 * A real, minimal OAuth 2.1 authorization server on a loopback port for tests: RFC 8414
 * metadata, a JWKS endpoint and a `client_credentials` token endpoint (client_secret_basic),
 * issuing RS256 JWT access tokens whose audience is the RFC 8707 `resource` parameter.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface AuthorizationServer {
  readonly issuer: string;
  readonly jwksUri: string;
  /** Signs any token, for tests of bad tokens (wrong audience, expired, other issuer). */
  sign(
    claims: Record<string, unknown>,
    options?: { expiresIn?: string | number; issuer?: string; audience?: string },
  ): Promise<string>;
  /** Tokens issued through the token endpoint. */
  readonly issued: string[];
  close(): Promise<void>;
}

export async function startAuthorizationServer(client: {
  id: string;
  secret: string;
  scopes: readonly string[];
}): Promise<AuthorizationServer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const issued: string[] = [];
  const sign: AuthorizationServer['sign'] = (claims, options = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(options.issuer ?? issuer)
      .setAudience(options.audience ?? 'unset')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(privateKey);

  const server: Server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (
      req.url === '/.well-known/oauth-authorization-server' ||
      req.url === '/.well-known/openid-configuration'
    ) {
      json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: [...client.scopes],
      });
      return;
    }
    if (req.url === '/jwks') {
      json(200, { keys: [jwk] });
      return;
    }
    if (req.url === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
      });
      req.on('end', async () => {
        const form = new URLSearchParams(body);
        const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
        if (req.headers.authorization !== `Basic ${basic}`) {
          json(401, { error: 'invalid_client' });
          return;
        }
        if (form.get('grant_type') !== 'client_credentials') {
          json(400, { error: 'unsupported_grant_type' });
          return;
        }
        const resource = form.get('resource');
        if (resource === null) {
          json(400, { error: 'invalid_target', error_description: 'resource is required (RFC 8707)' });
          return;
        }
        const asked = form.get('scope')?.split(' ').filter(Boolean) ?? [...client.scopes];
        const scope = asked.filter((s) => client.scopes.includes(s)).join(' ');
        const token = await sign(
          { sub: `client:${client.id}`, client_id: client.id, scope },
          { audience: resource },
        );
        issued.push(token);
        json(200, { access_token: token, token_type: 'Bearer', expires_in: 300, scope });
      });
      return;
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get issuer() {
      return issuer;
    },
    get jwksUri() {
      return `${issuer}/jwks`;
    },
    sign,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
