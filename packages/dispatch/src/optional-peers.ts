/**
 * The optional peer packages: a tools-only server installs none of them. The validators and the
 * YAML parser are imported once when dispatch loads (so registering stays synchronous) and are
 * undefined when absent; the transports and Code Mode are imported when first asked for. Using a
 * feature whose package is missing throws LocalError('missing_dependency') naming what to install.
 */

import type * as CodeModeTools from '@agentd/codemode/tools';
import type * as Cfworker from '@cfworker/json-schema';
import type AjvDraft07 from 'ajv';
import type Ajv2020 from 'ajv/dist/2020.js';
import type AddFormats from 'ajv-formats';
import type * as Yaml from 'yaml';
import { dispatchError } from './local-errors.js';

function isNotFound(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

async function absentAsUndefined<Module>(loading: Promise<Module>): Promise<Module | undefined> {
  try {
    return await loading;
  } catch (thrown) {
    if (isNotFound(thrown)) return undefined;
    throw thrown;
  }
}

/** The LocalError for a feature whose optional peer is not installed. */
export function missingPeer(packages: string, what: string, cause?: unknown) {
  return dispatchError(
    'missing_dependency',
    `${what} needs ${packages}: npm install ${packages}`,
    cause === undefined ? undefined : { cause },
  );
}

// Literal specifiers, so bundlers include whichever of them the application installed.
const [draft07, modern, formats, cfworker, yaml, toolsModule] = await Promise.all([
  absentAsUndefined(import('ajv')),
  absentAsUndefined(import('ajv/dist/2020.js')),
  absentAsUndefined(import('ajv-formats')),
  absentAsUndefined(import('@cfworker/json-schema')),
  absentAsUndefined(import('yaml')),
  absentAsUndefined(import('@agentd/codemode/tools')),
]);

/** ajv (both dialects) with ajv-formats, when installed. */
export const ajvModules:
  | { draft07: typeof AjvDraft07; modern: typeof Ajv2020; formats: typeof AddFormats }
  | undefined =
  draft07 && modern && formats
    ? { draft07: draft07.default, modern: modern.default, formats: formats.default }
    : undefined;

/** @cfworker/json-schema, when installed. */
export const cfworkerModule: typeof Cfworker | undefined = cfworker;

/** yaml, when installed. */
export const yamlModule: typeof Yaml | undefined = yaml;

/**
 * Code Mode's runtime-neutral half (search, tool definitions, the schema-to-TypeScript renderer), when
 * installed; a server that neither uses Code Mode nor reads the operation index never needs it.
 */
export function requireCodeModeTools(what: string): typeof CodeModeTools {
  if (toolsModule === undefined) throw missingPeer('@agentd/codemode', what);
  return toolsModule;
}

/** Code Mode's runner package, on first use (a literal specifier: bundlers include it when installed). */
export async function loadCodeMode(): Promise<typeof import('@agentd/codemode')> {
  try {
    return await import('@agentd/codemode');
  } catch (thrown) {
    if (!isNotFound(thrown)) throw thrown;
    throw missingPeer('@agentd/codemode', "exposure: 'codemode'", thrown);
  }
}

/** Imports an optional peer on first use; when it is not installed, says which package to install. */
export async function optionalPeer<Module>(specifier: string, what: string): Promise<Module> {
  try {
    // A variable specifier: bundlers and the type checker leave an optional peer alone.
    const name: string = specifier;
    return (await import(name)) as Module;
  } catch (thrown) {
    if (!isNotFound(thrown)) throw thrown;
    throw missingPeer(specifier.split('/').slice(0, 2).join('/'), what, thrown);
  }
}
