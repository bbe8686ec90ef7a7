/** Finds redis-server / nginx and decides what a test does when one is missing (fail under CI, loud skip elsewhere). */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export type ClusterBinary = 'redis-server' | 'nginx';

export const INSTALL_COMMAND = 'apt-get install -y redis-server nginx-light';

// Debian puts nginx in /usr/sbin, which a non-root PATH often lacks.
const EXTRA_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

/** Absolute path of `name` on PATH (plus the sbin directories), or undefined. */
function findBinary(name: ClusterBinary, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export interface GateOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Where the SKIPPED line goes (stderr by default). */
  readonly write?: (line: string) => void;
  /** Overrides the lookup (tests of the gate itself). */
  readonly find?: (name: ClusterBinary) => string | undefined;
}

const announced = new Set<string>();

/**
 * True when every binary exists. When one is missing: under `CI=true` throws (the test file fails);
 * elsewhere prints one loud SKIPPED line per `what` and returns false, so the caller skips.
 */
export function clusterBinariesAvailable(
  what: string,
  needed: readonly ClusterBinary[],
  options: GateOptions = {},
): boolean {
  const env = options.env ?? process.env;
  const find = options.find ?? ((name: ClusterBinary) => findBinary(name, env));
  const missing = needed.filter((name) => find(name) === undefined);
  if (missing.length === 0) return true;
  const message = `${what}: ${missing.join(' and ')} not found (${INSTALL_COMMAND})`;
  if (env.CI === 'true') throw new Error(`CI=true and ${message}`);
  if (!announced.has(what)) {
    announced.add(what);
    (options.write ?? ((line: string) => process.stderr.write(`${line}\n`)))(`SKIPPED: ${message}`);
  }
  return false;
}

/** The path of a binary the caller already gated on; throws with the install command otherwise. */
export function requireBinary(name: ClusterBinary): string {
  const path = findBinary(name);
  if (path === undefined) throw new Error(`${name} not found (${INSTALL_COMMAND})`);
  return path;
}
