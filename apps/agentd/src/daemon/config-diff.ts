/** Splits a config change into what hot reload applies and what needs a restart. */
import type { AgentdConfig } from '../config/config-schema.js';

/** Keys only read at startup: listeners, their auth, the tool exposure and the ring size. */
const RESTART_KEYS = [
  'serve',
  'auth',
  'tls',
  'http',
  'exposure',
  'codeModeWallMs',
  'codeMode',
  'connections',
  'eventsRing',
  'metrics',
  'cluster',
  'telemetry',
] as const;

export interface ConfigDiff {
  changed: string[];
  restartRequired: string[];
  /** The config to run with: new reloadable keys, old restart-only keys. */
  effective: AgentdConfig;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function diffConfig(running: AgentdConfig, next: AgentdConfig): ConfigDiff {
  const keys = new Set([...Object.keys(running), ...Object.keys(next)]) as Set<keyof AgentdConfig>;
  const changed = [...keys].filter((k) => !same(running[k], next[k]));
  const restartRequired = changed.filter((k) => (RESTART_KEYS as readonly string[]).includes(k));
  const effective = { ...next } as AgentdConfig;
  for (const key of RESTART_KEYS) {
    if (running[key] === undefined) delete effective[key];
    else (effective as unknown as Record<string, unknown>)[key] = running[key];
  }
  return { changed: changed.filter((k) => !restartRequired.includes(k)), restartRequired, effective };
}
