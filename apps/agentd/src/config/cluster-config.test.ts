/** The `cluster` block: layered like every key, defaults filled, validated, its secret redacted. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { redactConfig } from './redact-config.js';
import { type ConfigInputs, resolveConfig } from './resolve-config.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-cluster-config-'));

function inputs(over: Partial<ConfigInputs> = {}): ConfigInputs {
  return { env: { XDG_RUNTIME_DIR: dir }, flags: new Map(), serveDefaults: false, cwd: dir, ...over };
}

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.source} ${i.path} ${i.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('cluster config', () => {
  it('is absent unless configured', () => {
    expect(resolveConfig(inputs()).config.cluster).toBeUndefined();
  });

  it('fills the defaults and layers file < AGENTD_* < flags', () => {
    const path = join(dir, 'cluster.json');
    writeFileSync(path, JSON.stringify({ cluster: { redisUrl: 'redis://file:6379', keyPrefix: 'fleet1:' } }));
    expect(resolveConfig(inputs({ configPath: path })).config.cluster).toEqual({
      redisUrl: 'redis://file:6379',
      keyPrefix: 'fleet1:',
      leaseTtlMs: 15_000,
      recordTtlMs: 86_400_000,
    });
    const env = { XDG_RUNTIME_DIR: dir, AGENTD_REDIS_URL: 'redis://env:6379', AGENTD_INSTANCE_ID: 'east-1' };
    const flags = new Map([
      ['--lease-ttl-ms', ['2000']],
      ['--redis-url', ['rediss://flag:6380/2']],
    ]);
    expect(resolveConfig(inputs({ configPath: path, env, flags })).config.cluster).toEqual({
      redisUrl: 'rediss://flag:6380/2',
      instanceId: 'east-1',
      keyPrefix: 'fleet1:',
      leaseTtlMs: 2000,
      recordTtlMs: 86_400_000,
    });
  });

  it('refuses a cluster without a Redis URL, a bad URL, a bad instance id and a tiny lease', () => {
    const env = { XDG_RUNTIME_DIR: dir, AGENTD_LEASE_TTL_MS: '10', AGENTD_INSTANCE_ID: 'no spaces' };
    const issues = issuesOf(() => resolveConfig(inputs({ env })));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringContaining("/cluster must have required property 'redisUrl'"),
        expect.stringMatching(/AGENTD_LEASE_TTL_MS.*\/cluster\/leaseTtlMs must be >= 1000/),
        expect.stringMatching(/AGENTD_INSTANCE_ID.*\/cluster\/instanceId must match pattern/),
      ]),
    );
    const flags = new Map([['--redis-url', ['http://not-redis']]]);
    expect(issuesOf(() => resolveConfig(inputs({ flags })))).toEqual([
      expect.stringMatching(/--redis-url.*\/cluster\/redisUrl must match pattern/),
    ]);
  });

  it('redacts the password of the Redis URL in agent://config/effective', () => {
    const env = {
      XDG_RUNTIME_DIR: dir,
      AGENTD_REDIS_URL: 'redis://agentd:s3cret-pass@redis.internal:6379/1',
    };
    const redacted = redactConfig(resolveConfig(inputs({ env })).config);
    expect(JSON.stringify(redacted)).not.toContain('s3cret-pass');
    expect(redacted.cluster).toMatchObject({ redisUrl: 'redis://agentd:[redacted]@redis.internal:6379/1' });
    const open = redactConfig(resolveConfig(inputs({ env: { AGENTD_REDIS_URL: 'redis://r:6379' } })).config);
    expect(open.cluster).toMatchObject({ redisUrl: 'redis://r:6379' });
  });
});
