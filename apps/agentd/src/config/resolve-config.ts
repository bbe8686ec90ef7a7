/** Resolves the effective config: defaults < file < environment < flags, then cross-field rules. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isJsonObject, type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { parseLogLevel } from '../log/log-level.js';
import { MetricsTargetError, parseMetricsTarget } from '../metrics/metrics-target.js';
import { CLUSTER_DEFAULTS } from './cluster-config.js';
import { ConfigError, type ConfigIssue } from './config-error.js';
import type { AgentdConfig } from './config-schema.js';
import { defaultConfig } from './defaults.js';
import { describeJsonError } from './json-syntax.js';
import { envLayer, flagLayer, type Layer, mergeInto } from './layer.js';
import { parseServeTarget, type ServeTarget, ServeTargetError } from './serve-target.js';
import { ENV_BEARER_TOKEN, ENV_CONFIG_FILE, ENV_SOCKET, ENV_TOKEN, SETTINGS } from './settings.js';
import { validateLayer } from './validate-config.js';

export interface ConfigInputs {
  /** From --config, else AGENTD_CONFIG. */
  configPath?: string;
  env: NodeJS.ProcessEnv;
  /** Parsed daemon flags: flag name -> values in order. */
  flags: ReadonlyMap<string, string[]>;
  bearerTokenFile?: string;
  /** False for `agentd stdio`: no default socket or port. */
  serveDefaults: boolean;
  /** `agentd stdio`: the stdio target is added to whatever else is configured. */
  forceStdio?: boolean;
  cwd: string;
}

export interface ResolvedConfig {
  config: AgentdConfig;
  configPath: string | undefined;
  targets: ServeTarget[];
  /** PEM material read at resolve time so a missing file is a config error, not a runtime one. */
  tls: { cert: string; key: string } | undefined;
}

const KNOWN_ENV = new Set([
  ...SETTINGS.map((s) => s.env),
  ENV_CONFIG_FILE,
  ENV_BEARER_TOKEN,
  ENV_SOCKET,
  ENV_TOKEN,
]);

function rebase(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** Relative paths in a file are relative to the file, not to wherever agentd was started. */
function rebaseFilePaths(value: JsonObject, baseDir: string): void {
  if (Array.isArray(value.serve)) {
    value.serve = value.serve.map((t: unknown) =>
      typeof t === 'string' && t.startsWith('unix:') ? `unix:${rebase(t.slice(5), baseDir)}` : t,
    );
  }
  if (isJsonObject(value.tls)) {
    for (const k of ['cert', 'key'])
      if (typeof value.tls[k] === 'string') value.tls[k] = rebase(value.tls[k], baseDir);
  }
  if (isJsonObject(value.agents)) {
    for (const profile of Object.values(value.agents)) {
      if (!isJsonObject(profile)) continue;
      if (typeof profile.cwd === 'string') profile.cwd = rebase(profile.cwd, baseDir);
      if (typeof profile.command === 'string' && profile.command.includes('/')) {
        profile.command = rebase(profile.command, baseDir);
      }
    }
  }
}

/** Reads and validates a config file on its own (unknown keys are reported with their path). */
function readConfigFile(path: string): { layer: Layer; issues: ConfigIssue[] } {
  const source = `file ${path}`;
  const empty = { layer: { source, value: {}, labels: new Map<string, string>() } };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ...empty, issues: [{ source, path: '', message: `cannot read: ${(error as Error).message}` }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      ...empty,
      issues: [{ source, path: '', message: `not valid JSON at ${describeJsonError(text, error)}` }],
    };
  }
  const issues = validateLayer(parsed, source);
  if (issues.length > 0 || !isJsonObject(parsed)) return { ...empty, issues };
  rebaseFilePaths(parsed, dirname(resolve(path)));
  return { layer: { source, value: parsed, labels: new Map() }, issues: [] };
}

function labelFor(layers: readonly Layer[], path: string): string {
  for (const layer of [...layers].reverse()) {
    for (const [pointer, label] of layer.labels) {
      if (path === pointer || path.startsWith(`${pointer}/`)) return `${layer.source} (${label})`;
    }
  }
  return 'config';
}

function crossFieldIssues(config: AgentdConfig, layers: readonly Layer[], cwd: string) {
  const issues: ConfigIssue[] = [];
  const issue = (path: string, message: string) =>
    issues.push({ source: labelFor(layers, path), path, message });
  if (config.agents[config.defaultAgent] === undefined) {
    issue('/defaultAgent', `no agent profile named '${config.defaultAgent}'`);
  }
  const targets: ServeTarget[] = [];
  config.serve.forEach((raw, i) => {
    try {
      targets.push(parseServeTarget(raw, cwd));
    } catch (error) {
      if (!(error instanceof ServeTargetError)) throw error;
      issue(`/serve/${i}`, error.message);
    }
  });
  for (const [i, t] of targets.entries()) {
    if (t.kind === 'https' && config.tls === undefined) {
      issue(`/serve/${i}`, `${t.raw}: https needs tls.cert and tls.key`);
    }
    const remote = (t.kind === 'http' || t.kind === 'https') && !t.loopback;
    if (remote && config.auth.bearerTokens.length === 0 && config.auth.oauth === undefined) {
      issue(
        `/serve/${i}`,
        `${t.raw}: a non-loopback HTTP target needs a bearer token or OAuth (auth.bearerTokens, auth.oauth or ${ENV_BEARER_TOKEN})`,
      );
    }
  }
  if (targets.filter((t) => t.kind === 'stdio').length > 1) issue('/serve', 'stdio can be served once');
  if (config.metrics !== undefined) {
    try {
      const metrics = parseMetricsTarget(config.metrics);
      if (!metrics.loopback && config.auth.bearerTokens.length === 0)
        issue(
          '/metrics',
          `${metrics.raw}: a non-loopback metrics address needs a bearer token (auth.bearerTokens)`,
        );
    } catch (error) {
      if (!(error instanceof MetricsTargetError)) throw error;
      issue('/metrics', error.message);
    }
  }
  const names = config.auth.bearerTokens.map((t) => t.name);
  if (new Set(names).size !== names.length) issue('/auth/bearerTokens', 'token names must be unique');
  return { issues, targets };
}

function readTls(
  config: AgentdConfig,
  targets: readonly ServeTarget[],
  issues: ConfigIssue[],
  layers: Layer[],
) {
  if (config.tls === undefined || !targets.some((t) => t.kind === 'https')) return undefined;
  const read = (key: 'cert' | 'key'): string => {
    const path = (config.tls as { cert: string; key: string })[key];
    try {
      const pem = readFileSync(path, 'utf8');
      if (!pem.includes('-----BEGIN '))
        throw new LocalError<AgentdErrorCode>('invalid_config', 'not a PEM file');
      return pem;
    } catch (error) {
      issues.push({
        source: labelFor(layers, `/tls/${key}`),
        path: `/tls/${key}`,
        message: `${path}: ${(error as Error).message}`,
      });
      return '';
    }
  };
  return { cert: read('cert'), key: read('key') };
}

/**
 * The config file: --config, else AGENTD_CONFIG, else `$XDG_CONFIG_HOME/agentd/agentd.json`
 * (`~/.config/agentd/agentd.json`) when that file exists; none means built-in defaults.
 */
export function configPathOf(inputs: Pick<ConfigInputs, 'configPath' | 'env' | 'cwd'>): string | undefined {
  const path = inputs.configPath ?? inputs.env[ENV_CONFIG_FILE];
  if (path !== undefined && path !== '') return resolve(inputs.cwd, path);
  const fallback = defaultConfigPath(inputs.env);
  return fallback !== undefined && existsSync(fallback) ? fallback : undefined;
}

/** The XDG place for agentd's config (a relative XDG_CONFIG_HOME is ignored, as the spec says). */
function defaultConfigPath(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'agentd', 'agentd.json');
  const home = env.HOME;
  return home === undefined || home === '' ? undefined : join(home, '.config', 'agentd', 'agentd.json');
}

/** Throws ConfigError listing every problem; never has side effects beyond reading files. */
export function resolveConfig(inputs: ConfigInputs): ResolvedConfig {
  const issues: ConfigIssue[] = [];
  const layers: Layer[] = [];
  const configPath = configPathOf(inputs);
  if (configPath !== undefined) {
    const file = readConfigFile(configPath);
    issues.push(...file.issues);
    layers.push(file.layer);
  }
  const env = envLayer(inputs.env, KNOWN_ENV);
  issues.push(...env.issues);
  layers.push(env.layer);
  let bearerToken: string | undefined;
  if (inputs.bearerTokenFile !== undefined) {
    try {
      bearerToken = readFileSync(resolve(inputs.cwd, inputs.bearerTokenFile), 'utf8').trim();
    } catch (error) {
      issues.push({ source: 'flags', path: '--bearer-token-file', message: (error as Error).message });
    }
  }
  const flags = flagLayer(inputs.flags, bearerToken === undefined ? {} : { bearerToken });
  issues.push(...flags.issues);
  layers.push(flags.layer);
  if (issues.length > 0) throw new ConfigError(issues);

  let merged = defaultConfig({
    serveDefaults: inputs.serveDefaults,
    env: inputs.env,
  }) as unknown as JsonObject;
  for (const layer of layers) merged = mergeInto(merged, layer.value);
  const mergedIssues = validateLayer(merged, 'config').map((i) => ({
    ...i,
    source: labelFor(layers, i.path),
  }));
  if (mergedIssues.length > 0) throw new ConfigError(mergedIssues);
  const config = merged as unknown as AgentdConfig;
  // The schema also admits `warn`, agentd's older spelling; everything downstream sees the one vocabulary.
  config.logLevel = parseLogLevel(config.logLevel) ?? config.logLevel;
  if (config.cluster !== undefined) config.cluster = { ...CLUSTER_DEFAULTS, ...config.cluster };
  if (inputs.forceStdio === true) {
    // `agentd stdio` binds nothing but stdio unless its own --serve flags ask: a config file or
    // AGENTD_SERVE shared with the daemon must not make a client-launched agentd grab its socket.
    const asked = (inputs.flags.get('--serve') ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());
    config.serve = [...new Set([...asked.filter((v) => v !== ''), 'stdio'])];
  }
  const cross = crossFieldIssues(config, layers, inputs.cwd);
  const tls = readTls(config, cross.targets, cross.issues, layers);
  if (cross.issues.length > 0) throw new ConfigError(cross.issues);
  return { config, configPath, targets: cross.targets, tls };
}
