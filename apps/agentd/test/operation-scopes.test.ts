/**
 * `auth.operationScopes` end to end: the real agentd over loopback HTTP with OAuth access tokens
 * from a real (jose) authorization server. Operator operations need `agentd:operator` by default:
 * hidden from a token without it and, with `auth.oauth.stepUp`, answered 403 with the scope
 * challenge; a token with it sees and calls them; static bearer tokens are not scope-checked.
 */
import { createServer } from 'node:net';
import { type AuthorizationServer, type Json, startAuthorizationServer } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';

const STATIC = 'operation-scopes-static-token-0123456789';
let as: AuthorizationServer;
let agentd: Agentd;
let url: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  as = await startAuthorizationServer({
    id: 'ops',
    secret: 'ops-secret',
    scopes: ['agentd:use', 'agentd:operator'],
  });
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  agentd = await startAgentd({
    args: ['--serve', `http://127.0.0.1:${port}`],
    config: {
      exposure: 'classic',
      auth: {
        bearerTokens: [{ name: 'ops', token: STATIC }],
        oauth: {
          issuer: as.issuer,
          audience: url,
          jwksUri: as.jwksUri,
          requiredScopes: ['agentd:use'],
          stepUp: true,
        },
        operationScopes: { 'command_subagent.cancel': ['runs:write'] },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await agentd?.stop();
  await as?.close();
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function post(token: string, method: string, params: Json = {}) {
  const target = params.name ?? params.uri;
  const name = typeof target === 'string' ? { 'mcp-name': target } : {};
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  });
}

async function toolNames(token: string): Promise<string[]> {
  const body = (await (await post(token, 'tools/list')).json()) as { result: { tools: { name: string }[] } };
  return body.result.tools.map((t) => t.name);
}

const token = (scope: string) => as.sign({ sub: 'someone', scope }, { audience: url });

describe('agentd operation scopes over OAuth', () => {
  it('hides operator operations from a token without agentd:operator, and shows them with it', async () => {
    const user = await toolNames(await token('agentd:use'));
    expect(user).toContain('query_status');
    expect(user).toContain('command_subagent.spawn');
    for (const hidden of ['command_drain', 'command_pause', 'command_reload', 'command_subagent.cancel'])
      expect(user).not.toContain(hidden);
    const operator = await toolNames(await token('agentd:use agentd:operator'));
    expect(operator).toEqual(expect.arrayContaining(['command_drain', 'command_pause', 'query_status']));
    expect(operator).not.toContain('command_subagent.cancel');
    // A static bearer token is not scope-checked.
    expect(await toolNames(STATIC)).toEqual(
      expect.arrayContaining(['command_drain', 'command_subagent.cancel', 'query_status']),
    );
  });

  it('lists in agent://capabilities only the operations the token has scopes for', async () => {
    const read = async (scope: string) => {
      const res = await post(await token(scope), 'resources/read', { uri: 'agent://capabilities' });
      const body = (await res.json()) as { result: { contents: { text: string }[] } };
      const capabilities = JSON.parse(body.result.contents[0]?.text ?? '{}') as {
        operations: { id: string }[];
      };
      return capabilities.operations.map((o) => o.id);
    };
    expect(await read('agentd:use')).not.toContain('drain');
    expect(await read('agentd:use agentd:operator')).toContain('drain');
  });

  it('answers a call without the scope 403 with the step-up challenge', async () => {
    const res = await post(await token('agentd:use'), 'tools/call', {
      name: 'command_resume',
      arguments: {},
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="agentd:use agentd:operator", resource_metadata="${url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}"`,
    );
    expect(await res.json()).toMatchObject({ error: { data: { requiredScopes: ['agentd:operator'] } } });
    const allowed = await post(await token('agentd:use agentd:operator'), 'tools/call', {
      name: 'command_resume',
      arguments: {},
    });
    expect(allowed.status).toBe(200);
    const body = (await allowed.json()) as { result?: Json; error?: Json };
    expect(body.error).toBeUndefined();
    expect(body.result).toHaveProperty('content');
  });

  it('advertises the operation scopes in the protected resource metadata', async () => {
    const res = await fetch(url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'));
    const metadata = (await res.json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported.sort()).toEqual(['agentd:operator', 'agentd:use', 'runs:write']);
  });
});
