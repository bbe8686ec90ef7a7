/**
 * The OAuth 2.1 resource server against a real local authorization server (keys, JWKS and a
 * client_credentials token endpoint made with jose): RFC 9728 metadata, 401/403 challenges,
 * the JWT verifier's checks, scopes reaching handlers and driving ClientFilters, and the
 * official v2 client's own OAuth flow (no browser: client credentials).
 */
import { Dispatcher } from '@agentd/dispatch';
import { createServerCore, type Logger } from '@agentd/server';
import type { AuthorizationServer } from '@agentd/test-support';
import {
  ClientCredentialsProvider,
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_META } from './test-support/harness.js';
import { type OAuthEndpoint, serveOAuthEndpoint } from './test-support/oauth-endpoint.js';

const CLIENT = { id: 'robot', secret: 'robot-secret', scopes: ['mcp:use', 'admin'] };

let as: AuthorizationServer;
let endpoint: OAuthEndpoint;
let resource: string;
let metadataUrl: string;
const logged: string[] = [];
const peers: { scopes: readonly string[] | undefined; origin: string }[] = [];

const logger: Logger = {
  debug: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  info: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  warn: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  error: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
};

beforeAll(async () => {
  const dispatcher = new Dispatcher({
    logger,
    // Scopes decide the surface: without `admin`, admin tools are hidden and not callable.
    filtersFor: (peer) =>
      peer.auth?.scopes.includes('admin') === true
        ? undefined
        : { visible: { deny: ['admin_*'] }, callable: { denyTools: ['admin_*'] } },
  });
  dispatcher.registerTool({
    name: 'whoami',
    description: 'Who the caller authenticated as',
    handler: (_args, context) => {
      peers.push({ scopes: context.peer.auth?.scopes, origin: context.peer.origin });
      return `${context.peer.auth?.principal} via ${context.peer.auth?.scheme}`;
    },
  });
  dispatcher.registerTool({ name: 'admin_reset', description: 'Admins only', handler: () => 'reset' });
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'oauth-test', version: '1.0.0' },
    logger,
  });
  endpoint = await serveOAuthEndpoint(core, CLIENT, {
    requiredScopes: ['mcp:use'],
    scopesSupported: CLIENT.scopes,
    resourceName: 'agentd test',
  });
  ({ as, resource, metadataUrl } = endpoint);
});

afterAll(async () => {
  await endpoint?.close();
});

function post(token: string | undefined, method: string, params: Record<string, unknown> = {}) {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return fetch(resource, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } }),
  });
}

describe('RFC 9728 protected resource metadata', () => {
  it('is served at the path-suffixed and the bare well-known path, without a token', async () => {
    for (const url of [
      metadataUrl,
      `http://localhost:${endpoint.http.address.port}/.well-known/oauth-protected-resource`,
    ]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: CLIENT.scopes,
        resource_name: 'agentd test',
      });
    }
  });
});

describe('challenges', () => {
  it('no token: 401 with resource_metadata', async () => {
    const res = await post(undefined, 'tools/list');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    await res.text();
  });

  it('garbage, expired, wrong-audience and foreign-issuer tokens: 401 invalid_token', async () => {
    const tokens = [
      'not-a-jwt',
      await as.sign(
        { sub: 'x', scope: 'mcp:use' },
        { audience: resource, expiresIn: Math.floor(Date.now() / 1000) - 120 },
      ),
      await as.sign({ sub: 'x', scope: 'mcp:use' }, { audience: 'http://localhost:1/other' }),
      await as.sign({ sub: 'x', scope: 'mcp:use' }, { audience: resource, issuer: 'http://evil.example' }),
    ];
    for (const token of tokens) {
      const res = await post(token, 'tools/list');
      expect(res.status, token.slice(0, 20)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`,
      );
      await res.text();
    }
    // Tokens are never logged, valid or not.
    for (const token of tokens) expect(logged.join('\n')).not.toContain(token);
  });

  it('a valid token without the required scope: 403 insufficient_scope', async () => {
    const token = await as.sign({ sub: 'reader', scope: 'other' }, { audience: resource });
    const res = await post(token, 'tools/list');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp:use", resource_metadata="${metadataUrl}"`,
    );
    await res.text();
  });
});

describe('auth info in handlers and filters', () => {
  it('scopes reach the handler as peer.auth and decide what is visible and callable', async () => {
    const user = await as.sign({ sub: 'user-1', scope: 'mcp:use', client_id: 'app' }, { audience: resource });
    const admin = await as.sign({ sub: 'admin-1', scope: 'mcp:use admin' }, { audience: resource });
    const userList = (await (await post(user, 'tools/list')).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(userList.result.tools.map((t) => t.name)).toEqual(['whoami']);
    const adminList = (await (await post(admin, 'tools/list')).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(adminList.result.tools.map((t) => t.name).sort()).toEqual(['admin_reset', 'whoami']);
    const refused = (await (
      await post(user, 'tools/call', { name: 'admin_reset', arguments: {} })
    ).json()) as {
      result?: { isError?: boolean };
      error?: unknown;
    };
    expect(refused.error ?? refused.result?.isError).toBeTruthy();
    const who = (await (await post(user, 'tools/call', { name: 'whoami', arguments: {} })).json()) as {
      result: { content: { text: string }[] };
    };
    expect(who.result.content[0]?.text).toBe('user-1 via oauth');
    expect(peers.at(-1)).toEqual({ scopes: ['mcp:use'], origin: 'management' });
    expect(logged.join('\n')).not.toContain(user);
  });
});

describe('the official v2 client, client credentials', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`discovers the authorization server, gets a token for this resource and calls (${era})`, async () => {
      const before = as.issued.length;
      const provider = new ClientCredentialsProvider({
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
        scope: 'mcp:use',
        expectedIssuer: as.issuer,
      });
      const client = new ClientV2(
        { name: 'robot', version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      await client.connect(new TransportV2(new URL(resource), { authProvider: provider }));
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'client:robot via oauth' }]);
      expect(as.issued.length).toBeGreaterThan(before);
      await client.close();
    });
  }
});
