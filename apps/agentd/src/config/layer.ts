/** A partial config layer (file, environment or flags) plus which source set each key. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { ConfigIssue } from './config-error.js';
import { nearestName } from './nearest-name.js';
import { ENV_BEARER_TOKEN, SETTINGS, type Setting } from './settings.js';

export interface Layer {
  readonly source: string;
  readonly value: JsonObject;
  /** JSON pointer -> human label ('AGENTD_LOG_LEVEL', '--log-level'), for error messages. */
  readonly labels: ReadonlyMap<string, string>;
}

function pointer(key: readonly string[]): string {
  return `/${key.join('/')}`;
}

function setIn(target: JsonObject, key: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of key.slice(0, -1)) {
    const next = node[segment];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) node = next as JsonObject;
    else {
      const created: JsonObject = {};
      node[segment] = created;
      node = created;
    }
  }
  node[key[key.length - 1] as string] = value;
}

function coerce(
  setting: Setting,
  raw: string,
  label: string,
  issues: ConfigIssue[],
  source: string,
): unknown {
  const fail = (message: string): undefined => {
    issues.push({ source, path: label, message });
    return undefined;
  };
  switch (setting.type) {
    case 'string':
      return raw;
    case 'list':
      return raw
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
    case 'int':
      return /^-?[0-9]+$/.test(raw.trim()) ? Number(raw.trim()) : fail(`expected an integer, got '${raw}'`);
    case 'bool':
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      return fail(`expected true or false, got '${raw}'`);
  }
}

/** Reads AGENTD_* variables from the table; an unknown AGENTD_* name is reported so typos do not pass silently. */
export function envLayer(
  env: NodeJS.ProcessEnv,
  known: ReadonlySet<string>,
): { layer: Layer; issues: ConfigIssue[] } {
  const source = 'environment';
  const value: JsonObject = {};
  const labels = new Map<string, string>();
  const issues: ConfigIssue[] = [];
  for (const setting of SETTINGS) {
    const raw = env[setting.env];
    if (raw === undefined || raw === '') continue;
    const coerced = coerce(setting, raw, setting.env, issues, source);
    if (coerced === undefined) continue;
    setIn(value, setting.key, coerced);
    labels.set(pointer(setting.key), setting.env);
  }
  const token = env[ENV_BEARER_TOKEN];
  if (token !== undefined && token !== '') {
    value.auth = { bearerTokens: [{ name: 'env', token }] };
    labels.set('/auth', ENV_BEARER_TOKEN);
  }
  for (const name of Object.keys(env)) {
    if (name.startsWith('AGENTD_') && !known.has(name)) {
      const near = nearestName(name, known);
      issues.push({
        source,
        path: name,
        message: `unknown AGENTD_* variable${near === undefined ? '' : ` (did you mean ${near}?)`}`,
      });
    }
  }
  return { layer: { source, value, labels }, issues };
}

/** Builds the flag layer from already-split `--flag value` pairs. */
export function flagLayer(
  flags: ReadonlyMap<string, string[]>,
  extra: { bearerToken?: string } = {},
): { layer: Layer; issues: ConfigIssue[] } {
  const source = 'flags';
  const value: JsonObject = {};
  const labels = new Map<string, string>();
  const issues: ConfigIssue[] = [];
  for (const setting of SETTINGS) {
    const values = flags.get(setting.flag);
    if (values === undefined) continue;
    const raw = setting.type === 'list' ? values.join(',') : (values[values.length - 1] as string);
    const coerced = coerce(setting, raw, setting.flag, issues, source);
    if (coerced === undefined) continue;
    setIn(value, setting.key, coerced);
    labels.set(pointer(setting.key), setting.flag);
  }
  if (extra.bearerToken !== undefined) {
    value.auth = { bearerTokens: [{ name: 'flag', token: extra.bearerToken }] };
    labels.set('/auth', '--bearer-token-file');
  }
  return { layer: { source, value, labels }, issues };
}

/** Deep merge: objects merge key by key, arrays and scalars replace; agent profiles replace whole. */
export function mergeInto(base: JsonObject, over: JsonObject, path: readonly string[] = []): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
    const replaceWhole = path.length === 1 && path[0] === 'agents';
    out[key] =
      isObj(prior) && isObj(value) && !replaceWhole ? mergeInto(prior, value, [...path, key]) : value;
  }
  return out;
}
