/** `auth.oauth`: validated like the rest of the config, and enough on its own for a remote HTTP target. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCALHOST_TLS } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { redactConfig } from './redact-config.js';
import { resolveConfig } from './resolve-config.js';

const TLS = LOCALHOST_TLS;
const dir = mkdtempSync(join(tmpdir(), 'agentd-oauth-config-'));
const OAUTH = {
  issuer: 'https://auth.example.com',
  audience: 'https://agentd.example.com/mcp',
  jwksUri: 'https://auth.example.com/.well-known/jwks.json',
  requiredScopes: ['agentd:use'],
};

function resolveWith(auth: unknown, serve: string[] = ['https://0.0.0.0:8443']) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ auth, serve, tls: TLS }));
  return resolveConfig({ configPath: path, env: {}, flags: new Map(), serveDefaults: false, cwd: dir });
}

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path} ${i.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('auth.oauth', () => {
  it('is accepted, counts as auth for a non-loopback target, and shows in the redacted config', () => {
    const { config } = resolveWith({ oauth: OAUTH });
    expect(config.auth.oauth).toEqual(OAUTH);
    expect((redactConfig(config).auth as { oauth: unknown }).oauth).toEqual(OAUTH);
  });

  it('rejects missing fields, unknown keys, non-URLs and scopes with spaces', () => {
    const issues = [
      ...issuesOf(() => resolveWith({ oauth: { issuer: OAUTH.issuer, audience: OAUTH.audience } })),
      ...issuesOf(() => resolveWith({ oauth: { ...OAUTH, clientSecret: 'x' } })),
      ...issuesOf(() => resolveWith({ oauth: { ...OAUTH, jwksUri: 'file:///etc/keys' } })),
      ...issuesOf(() => resolveWith({ oauth: { ...OAUTH, requiredScopes: ['a b'] } })),
    ].join('\n');
    expect(issues).toMatch(/jwksUri/);
    expect(issues).toMatch(/unknown key 'clientSecret'/);
    expect(issues).toMatch(/\/auth\/oauth\/jwksUri/);
    expect(issues).toMatch(/\/auth\/oauth\/requiredScopes\/0/);
  });
});
