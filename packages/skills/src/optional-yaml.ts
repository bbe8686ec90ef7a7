/**
 * `yaml`, the optional peer a SKILL.md frontmatter needs: loaded synchronously on first use where
 * the runtime can require (registering a skill stays synchronous), else once when this module
 * loads; undefined when it is not installed. A missing peer is one problem, said once.
 */
import { LocalError, runtimeRequire } from '@agentd/rpc-frame';
import type * as Yaml from 'yaml';
import { skillsError } from './local-errors.js';

function isNotFound(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

const requirePeer = runtimeRequire(import.meta.url);

// A literal specifier with `.catch` on it: bundlers include yaml when installed and leave it to run time otherwise.
const imported =
  requirePeer === undefined
    ? await import('yaml').catch((thrown: unknown) => {
        if (isNotFound(thrown)) return undefined;
        throw thrown;
      })
    : undefined;

let required: { module: typeof Yaml | undefined } | undefined;

/** yaml, when installed; loaded on first call. */
function yamlModule(): typeof Yaml | undefined {
  if (requirePeer === undefined) return imported;
  if (required === undefined) {
    try {
      required = { module: requirePeer('yaml') as typeof Yaml };
    } catch (thrown) {
      if (!isNotFound(thrown)) throw thrown;
      required = { module: undefined };
    }
  }
  return required.module;
}

/** yaml, or the LocalError `missing_dependency` naming the install line. */
export function requireYaml(what: string): typeof Yaml {
  const yaml = yamlModule();
  if (yaml === undefined) throw skillsError('missing_dependency', `${what} needs yaml: npm install yaml`);
  return yaml;
}

const logged = new Set<string>();

/**
 * True the first time this process logs `error` if it is a missing peer's (then false for that
 * message again: a folder rescanned on every change says "npm install yaml" once); true for any
 * other error.
 */
export function firstTimeLogged(error: unknown): boolean {
  if (!(error instanceof LocalError) || error.code !== 'missing_dependency') return true;
  if (logged.has(error.message)) return false;
  logged.add(error.message);
  return true;
}
