/**
 * The built runs page (dist/ui/runs.html) and how a listener serves it: one self-contained file
 * under 60 kB gzipped; /ui/ with its security headers and the endpoint's Host/Origin rules; the
 * MCP App resource listed under Code Mode too.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { APP_MIME_TYPE } from '@agentd/lifecycle/apps';
import { type Json, NdjsonClient } from '@agentd/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';

const PAGE = fileURLToPath(new URL('../dist/ui/runs.html', import.meta.url));

describe('the built page', () => {
  const html = readFileSync(PAGE, 'utf8');

  it('is one self-contained HTML file under 60 kB gzipped', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(gzipSync(html).length).toBeLessThan(60 * 1024);
    // Nothing is fetched at run time: no external script, style, font or image.
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*\shref=/i);
    expect(html).not.toMatch(/@import|url\(\s*['"]?https?:/i);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<style>/g)).toHaveLength(1);
  });

  it('carries the stable test hooks', () => {
    for (const hook of [
      'data-action="token"',
      'name="token"',
      'data-action="spawn"',
      'name="instruction"',
      'data-action="cancel"',
      'data-run-output',
    ])
      expect(html).toContain(hook);
  });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /ui/ on an HTTP listener (Code Mode, bearer auth)', () => {
  let agentd: Agentd;
  let origin: string;

  beforeAll(async () => {
    agentd = await startAgentd({
      http: true,
      config: {
        auth: { bearerTokens: [{ name: 'ui', token: 'ui-page-token-0123456789abcdef' }] },
        http: { allowedOrigins: ['https://console.example.com'] },
      },
    });
    origin = new URL(agentd.httpUrl as string).origin;
  }, 60_000);

  afterAll(async () => {
    await agentd?.stop();
  });

  it('serves the page without a token, with a strict CSP and the security headers', async () => {
    for (const path of ['/ui/', '/ui']) {
      const answer = await get(`${origin}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(answer.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(csp).not.toContain('unsafe-inline');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.body).toContain('<meta name="agentd-endpoint" content="/mcp" />');
    }
    // The page holds no data: what it shows comes from the endpoint, which still wants the token.
    const mcp = await get(agentd.httpUrl as string, { 'content-type': 'application/json' }, 'POST');
    expect(mcp.status).toBe(401);
  });

  it('applies the endpoint’s Host and Origin rules, and only GET and HEAD', async () => {
    expect((await get(`${origin}/ui/`, { host: 'evil.example.com' })).status).toBe(403);
    expect((await get(`${origin}/ui/`, { origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await get(`${origin}/ui/`, { origin: 'https://console.example.com' })).status).toBe(200);
    expect((await get(`${origin}/ui/`, { host: 'localhost' })).status).toBe(200);
    const head = await get(`${origin}/ui/`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const post = await get(`${origin}/ui/`, {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    // Other paths stay the endpoint's.
    expect((await get(`${origin}/ui/x`)).status).toBe(404);
  });

  it('logs the dashboard URL at startup', () => {
    expect(agentd.logs.find((l) => l.msg === 'dashboard')).toMatchObject({ url: `${origin}/ui/` });
  });

  it('lists the MCP App under Code Mode, with no tool linking it', async () => {
    const client = await NdjsonClient.connect(agentd.socket);
    try {
      const resources = (await client.modernResult('resources/list')).resources as Json[];
      expect(resources.find((r) => r.uri === 'ui://agentd/runs')).toMatchObject({ mimeType: APP_MIME_TYPE });
      const read = (await client.modernResult('resources/read', { uri: 'ui://agentd/runs' }))
        .contents as Json[];
      expect(read[0]?.text).toBe(readFileSync(PAGE, 'utf8'));
      const tools = (await client.modernResult('tools/list')).tools as Json[];
      expect(tools.map((t) => t.name).sort()).toEqual(['execute', 'search']);
      expect(tools.some((t) => (t._meta as Json | undefined)?.ui !== undefined)).toBe(false);
      const discover = await client.modernResult('server/discover');
      expect((discover.capabilities as Json).extensions).toHaveProperty(['io.modelcontextprotocol/ui']);
    } finally {
      client.end();
    }
  });
});
