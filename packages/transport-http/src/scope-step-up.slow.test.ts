/**
 * Per-tool scopes over real HTTP with real OAuth access tokens (a jose authorization server on
 * loopback): scoped tools hidden from a token without the scope, and with `stepUp` a call answered
 * 403 with the RFC 6750 `insufficient_scope` challenge, in both eras; the official v2 client
 * re-authorizes with the challenged scopes and its retried call succeeds.
 */
import { Dispatcher } from '@agentd/dispatch';
import { ErrorCode } from '@agentd/lifecycle';
import { createServerCore, silentLogger } from '@agentd/server';
import type { AuthorizationServer } from '@agentd/test-support';
import {
  ClientCredentialsProvider,
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_META } from './test-support/harness.js';
import { type OAuthEndpoint, serveOAuthEndpoint } from './test-support/oauth-endpoint.js';

const CLIENT = { id: 'robot', secret: 'robot-secret', scopes: ['mcp:use', 'runs:write'] };

let as: AuthorizationServer;
let endpoint: OAuthEndpoint;
let resource: string;
let metadataUrl: string;
const starts: string[] = [];

beforeAll(async () => {
  const dispatcher = new Dispatcher({ logger: silentLogger, stepUp: true });
  dispatcher.registerTool({ name: 'runs_list', description: 'Lists runs', handler: () => 'none yet' });
  dispatcher.registerTool({
    name: 'runs_start',
    description: 'Starts a run',
    requiredScopes: ['runs:write'],
    handler: (_args, context) => {
      starts.push(context.peer.auth?.scopes.join(' ') ?? '');
      return 'started';
    },
  });
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'step-up', version: '1' },
    logger: silentLogger,
  });
  endpoint = await serveOAuthEndpoint(core, CLIENT, {
    requiredScopes: ['mcp:use'],
    // Least privilege: clients first ask for the base scope only; runs:write comes by step-up.
    scopesSupported: ['mcp:use'],
  });
  ({ as, resource, metadataUrl } = endpoint);
});

afterAll(async () => {
  await endpoint?.close();
});

function headers(token: string, extra: Record<string, string> = {}) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    ...extra,
  };
}

function postModern(token: string, method: string, params: Record<string, unknown> = {}) {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return fetch(resource, {
    method: 'POST',
    headers: headers(token, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name }),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } }),
  });
}

const CHALLENGE = () =>
  `Bearer error="insufficient_scope", scope="mcp:use runs:write", resource_metadata="${metadataUrl}"`;

describe('per-tool scopes over HTTP', () => {
  it('hides the scoped tool from a token without the scope and answers its call 403 (modern)', async () => {
    const token = await as.sign({ sub: 'reader', scope: 'mcp:use' }, { audience: resource });
    const list = (await (await postModern(token, 'tools/list')).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(list.result.tools.map((t) => t.name)).toEqual(['runs_list']);
    const res = await postModern(token, 'tools/call', { name: 'runs_start', arguments: {} });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE());
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: ErrorCode.InsufficientScope,
        message: 'Forbidden: insufficient scope',
        data: { requiredScopes: ['runs:write'] },
      },
    });
    const writer = await as.sign({ sub: 'writer', scope: 'mcp:use runs:write' }, { audience: resource });
    const ok = await postModern(writer, 'tools/call', { name: 'runs_start', arguments: {} });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'started' }] } });
  });

  it('answers 403 with the challenge in a legacy session too', async () => {
    const token = await as.sign({ sub: 'reader', scope: 'mcp:use' }, { audience: resource });
    const init = await fetch(resource, {
      method: 'POST',
      headers: headers(token),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const legacy = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (
      await fetch(resource, {
        method: 'POST',
        headers: headers(token, legacy),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const res = await fetch(resource, {
      method: 'POST',
      headers: headers(token, { ...legacy, accept: 'application/json, text/event-stream' }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'runs_start', arguments: {} },
      }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE());
    expect(await res.json()).toMatchObject({ id: 2, error: { code: ErrorCode.InsufficientScope } });
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`the official v2 client steps up to the challenged scopes and its call succeeds (${era})`, async () => {
      const before = starts.length;
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
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(['runs_list']);
      const result = await client.callTool({ name: 'runs_start', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'started' }]);
      // The retried call carried a token with both scopes.
      expect(starts.slice(before)).toEqual(['mcp:use runs:write']);
      await client.close();
    });
  }
});
