import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { DEFAULT_HTTP_PORT } from './defaults.js';
import { type ConfigInputs, resolveConfig } from './resolve-config.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-config-'));

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function inputs(over: Partial<ConfigInputs> = {}): ConfigInputs {
  return {
    env: { XDG_RUNTIME_DIR: '/run/user/1000' },
    flags: new Map(),
    serveDefaults: true,
    cwd: dir,
    ...over,
  };
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

describe('resolveConfig', () => {
  it('embeds defaults: a unix socket under the runtime dir, loopback HTTP, code mode, the example agent', () => {
    const { config, targets } = resolveConfig(inputs());
    expect(config.serve).toEqual([
      'unix:/run/user/1000/agentd/agentd.sock',
      `http://127.0.0.1:${DEFAULT_HTTP_PORT}`,
    ]);
    expect(targets.map((t) => t.kind)).toEqual(['unix', 'http']);
    expect(config.exposure).toBe('codemode');
    expect(config.defaultAgent).toBe('example');
    expect(config.agents.example?.mode).toBe('protocol');
  });

  it('applies default < file < env < flag', () => {
    const path = file('prec.json', {
      logLevel: 'warn',
      drainTimeoutMs: 1000,
      limits: { maxWarmSessions: 3 },
    });
    const fromFile = resolveConfig(inputs({ configPath: path }));
    // `warn` is accepted as the older spelling of MCP's `warning`.
    expect(fromFile.config.logLevel).toBe('warning');
    expect(fromFile.config.limits.maxWarmSessions).toBe(3);
    expect(fromFile.config.limits.maxConcurrentRuns).toBe(4);
    const env = { AGENTD_LOG_LEVEL: 'error', AGENTD_DRAIN_TIMEOUT_MS: '2000' };
    const fromEnv = resolveConfig(inputs({ configPath: path, env }));
    expect(fromEnv.config.logLevel).toBe('error');
    expect(fromEnv.config.drainTimeoutMs).toBe(2000);
    const flags = new Map([['--log-level', ['debug']]]);
    const fromFlag = resolveConfig(inputs({ configPath: path, env, flags }));
    expect(fromFlag.config.logLevel).toBe('debug');
    expect(fromFlag.config.drainTimeoutMs).toBe(2000);
  });

  it("accepts MCP's eight log levels, and `warn` as `warning` from every layer", () => {
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
      expect(resolveConfig(inputs({ env: { AGENTD_LOG_LEVEL: level } })).config.logLevel).toBe(level);
    expect(resolveConfig(inputs({ env: { AGENTD_LOG_LEVEL: 'warn' } })).config.logLevel).toBe('warning');
    const flags = new Map([['--log-level', ['warn']]]);
    expect(resolveConfig(inputs({ flags })).config.logLevel).toBe('warning');
  });

  it('rejects unknown keys with their path, everywhere in the document', () => {
    const path = file('unknown.json', {
      logLevl: 'info',
      limits: { maxRuns: 1 },
      agents: { a: { mode: 'plain', command: 'cat', shell: true } },
    });
    expect(issuesOf(() => resolveConfig(inputs({ configPath: path })))).toEqual(
      expect.arrayContaining([
        "/logLevl unknown key 'logLevl' (did you mean `logLevel`?)",
        "/limits/maxRuns unknown key 'maxRuns'",
        "/agents/a/shell unknown key 'shell'",
      ]),
    );
  });

  it('reports bad JSON, bad enums, bad env values and unknown AGENTD_ variables', () => {
    expect(
      issuesOf(() => resolveConfig(inputs({ configPath: file('bad.json', '{"serve": [') }))).join(),
    ).toMatch(/not valid JSON/);
    expect(
      issuesOf(() => resolveConfig(inputs({ configPath: file('enum.json', { exposure: 'both' }) }))),
    ).toEqual(['/exposure must be one of "codemode", "classic"']);
    expect(
      issuesOf(() => resolveConfig(inputs({ env: { AGENTD_EVENTS_RING: 'lots', AGENTD_LOGLEVEL: 'x' } }))),
    ).toEqual([
      "AGENTD_EVENTS_RING expected an integer, got 'lots'",
      'AGENTD_LOGLEVEL unknown AGENTD_* variable (did you mean AGENTD_LOG_LEVEL?)',
    ]);
    expect(issuesOf(() => resolveConfig(inputs({ env: { AGENTD_LOG_LEVEL: 'loud' } })))).toEqual([
      '/logLevel must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", "warn"',
    ]);
  });

  it('names the layer that set a bad value', () => {
    expect(() => resolveConfig(inputs({ env: { AGENTD_LOG_LEVEL: 'loud' } }))).toThrow(
      'environment (AGENTD_LOG_LEVEL)',
    );
  });

  it('enforces cross-field rules: default agent exists, remote HTTP needs TLS and a token, https needs a cert', () => {
    expect(
      issuesOf(() => resolveConfig(inputs({ flags: new Map([['--default-agent', ['nobody']]]) }))),
    ).toEqual(["/defaultAgent no agent profile named 'nobody'"]);
    const remote = new Map([['--serve', ['http://0.0.0.0:8080']]]);
    expect(issuesOf(() => resolveConfig(inputs({ flags: remote }))).join('\n')).toMatch(
      /needs a bearer token/,
    );
    const https = new Map([['--serve', ['https://127.0.0.1:8443']]]);
    expect(issuesOf(() => resolveConfig(inputs({ flags: https }))).join()).toMatch(
      /https needs tls.cert and tls.key/,
    );
    const missingPem = new Map([
      ['--serve', ['https://127.0.0.1:8443']],
      ['--tls-cert', ['/nonexistent/cert.pem']],
      ['--tls-key', ['/nonexistent/key.pem']],
    ]);
    expect(issuesOf(() => resolveConfig(inputs({ flags: missingPem }))).join()).toMatch(/cert.pem: ENOENT/);
    expect(
      issuesOf(() => resolveConfig(inputs({ flags: new Map([['--serve', ['vsock:0']]]) }))).join(),
    ).toMatch(/port 0/);
  });

  it('resolves relative paths in a file against the file, and accepts a remote https target with a token', () => {
    writeFileSync(join(dir, 'c.pem'), '-----BEGIN CERTIFICATE-----\n');
    writeFileSync(join(dir, 'k.pem'), '-----BEGIN PRIVATE KEY-----\n');
    const path = file('rel.json', {
      serve: ['unix:sock/agentd.sock', 'https://0.0.0.0:8443'],
      tls: { cert: 'c.pem', key: 'k.pem' },
      auth: { bearerTokens: [{ name: 'ops', token: '0123456789abcdef0123' }] },
      agents: { shell: { mode: 'plain', command: './bin/run.sh', cwd: 'work' } },
    });
    const { config, targets, tls } = resolveConfig(inputs({ configPath: path, cwd: '/' }));
    expect(targets[0]).toMatchObject({ kind: 'unix', path: join(dir, 'sock/agentd.sock') });
    expect(targets[1]).toMatchObject({ kind: 'https', host: '0.0.0.0', port: 8443, loopback: false });
    expect(tls?.cert).toContain('BEGIN CERTIFICATE');
    expect(config.agents.shell).toMatchObject({ command: join(dir, 'bin/run.sh'), cwd: join(dir, 'work') });
    expect(config.agents.example).toBeDefined();
  });

  it('stdio mode serves no defaults but adds stdio', () => {
    const { config } = resolveConfig(inputs({ serveDefaults: false, forceStdio: true }));
    expect(config.serve).toEqual(['stdio']);
  });

  it("stdio mode ignores the file's and the environment's serve targets; only its own --serve adds one", () => {
    const path = file('stdio-serve.json', { serve: ['unix:from-file.sock', 'http://127.0.0.1:0'] });
    const env = { XDG_RUNTIME_DIR: '/run/user/1000', AGENTD_SERVE: 'unix:/tmp/from-env.sock' };
    const quiet = resolveConfig(inputs({ configPath: path, env, serveDefaults: false, forceStdio: true }));
    expect(quiet.config.serve).toEqual(['stdio']);
    const flags = new Map([['--serve', ['unix:/tmp/asked.sock']]]);
    const asked = resolveConfig(inputs({ configPath: path, flags, serveDefaults: false, forceStdio: true }));
    expect(asked.config.serve).toEqual(['unix:/tmp/asked.sock', 'stdio']);
  });

  it('reads $XDG_CONFIG_HOME/agentd/agentd.json, else ~/.config/agentd/agentd.json, when no file is named', () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-home-'));
    const xdg = mkdtempSync(join(tmpdir(), 'agentd-xdg-'));
    const env = { XDG_RUNTIME_DIR: '/run/user/1000', HOME: home };
    // Nothing there yet: the built-in defaults, no file.
    expect(resolveConfig(inputs({ env })).configPath).toBeUndefined();
    mkdirSync(join(home, '.config', 'agentd'), { recursive: true });
    writeFileSync(join(home, '.config', 'agentd', 'agentd.json'), JSON.stringify({ logLevel: 'debug' }));
    const fromHome = resolveConfig(inputs({ env }));
    expect(fromHome.configPath).toBe(join(home, '.config', 'agentd', 'agentd.json'));
    expect(fromHome.config.logLevel).toBe('debug');
    mkdirSync(join(xdg, 'agentd'));
    writeFileSync(join(xdg, 'agentd', 'agentd.json'), JSON.stringify({ logLevel: 'error' }));
    const fromXdg = resolveConfig(inputs({ env: { ...env, XDG_CONFIG_HOME: xdg } }));
    expect(fromXdg.configPath).toBe(join(xdg, 'agentd', 'agentd.json'));
    expect(fromXdg.config.logLevel).toBe('error');
    // A relative XDG_CONFIG_HOME is not a base directory (XDG spec): the home one is used.
    expect(resolveConfig(inputs({ env: { ...env, XDG_CONFIG_HOME: 'rel' } })).configPath).toBe(
      fromHome.configPath,
    );
    // A named file wins over the default place.
    const named = file('named.json', {});
    expect(resolveConfig(inputs({ env, configPath: named })).configPath).toBe(named);
  });

  it('suggests the nearest key for an unknown one, and gives line and column of a JSON syntax error', () => {
    expect(
      issuesOf(() => resolveConfig(inputs({ configPath: file('typo.json', { defaltAgent: 'x' }) }))),
    ).toEqual(["/defaltAgent unknown key 'defaltAgent' (did you mean `defaultAgent`?)"]);
    expect(
      issuesOf(() =>
        resolveConfig(inputs({ configPath: file('nested.json', { limits: { maxConcurentRuns: 2 } }) })),
      ),
    ).toEqual([
      "/limits/maxConcurentRuns unknown key 'maxConcurentRuns' (did you mean `maxConcurrentRuns`?)",
    ]);
    // Nothing close: no guess.
    expect(issuesOf(() => resolveConfig(inputs({ configPath: file('far.json', { zzz: 1 }) })))).toEqual([
      "/zzz unknown key 'zzz'",
    ]);
    const broken = file('broken.json', '{\n  "logLevel": "info"\n  "exposure": "classic"\n}\n');
    expect(issuesOf(() => resolveConfig(inputs({ configPath: broken })))).toEqual([
      expect.stringMatching(/^ not valid JSON at line 3, column 3: expected ',' or '}' after property value/),
    ]);
    expect(issuesOf(() => resolveConfig(inputs({ env: { AGENTD_LOG_LEVL: 'x' } })))).toEqual([
      'AGENTD_LOG_LEVL unknown AGENTD_* variable (did you mean AGENTD_LOG_LEVEL?)',
    ]);
  });
});
