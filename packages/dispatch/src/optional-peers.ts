/**
 * The optional peer packages: a tools-only server installs none of them. The validators load
 * synchronously on first use where the runtime can require (registering stays
 * synchronous), else once when dispatch loads; they are undefined when absent. The transports and
 * Code Mode's runner are imported when first asked for. Using a feature whose package is missing
 * throws LocalError('missing_dependency') naming what to install.
 */

import type * as CodeModeTools from '@agentd/codemode/tools';
import { runtimeRequire } from '@agentd/rpc-frame';
import type * as Cfworker from '@cfworker/json-schema';
import type AjvDraft07 from 'ajv';
import type Ajv2020 from 'ajv/dist/2020.js';
import type AddFormats from 'ajv-formats';
import { dispatchError } from './local-errors.js';

function isNotFound(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * For `import('peer').catch(absent)`: a peer that is not installed loads as undefined. The
 * `.catch` right on the literal `import()` is also what tells bundlers (esbuild) that a peer they
 * cannot resolve is a run-time matter: a server that installed none of them still bundles.
 */
function absent(thrown: unknown): undefined {
  if (isNotFound(thrown)) return undefined;
  throw thrown;
}

/** The LocalError for a feature whose optional peer is not installed, with the install line. */
export function missingPeer(packages: string, what: string, cause?: unknown) {
  return dispatchError(
    'missing_dependency',
    `${what} needs ${packages}: npm install ${packages}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * A synchronous `require` where the runtime has one (Node 20.16+, Bun, Deno): the validators are
 * then loaded on first use, so a server that never needs them never pays for
 * them at startup. Elsewhere (workerd, browsers) they are imported once when dispatch loads.
 */
const requirePeer = runtimeRequire(import.meta.url);

interface Peers {
  draft07: { default: typeof AjvDraft07 } | undefined;
  modern: { default: typeof Ajv2020 } | undefined;
  formats: { default: typeof AddFormats } | undefined;
  cfworker: typeof Cfworker | undefined;
}

// Literal specifiers, so bundlers include whichever of them the application installed.
const imported: Peers | undefined =
  requirePeer === undefined
    ? await Promise.all([
        import('ajv').catch(absent),
        import('ajv/dist/2020.js').catch(absent),
        import('ajv-formats').catch(absent),
        import('@cfworker/json-schema').catch(absent),
      ]).then(([draft07, modern, formats, cfworker]) => ({ draft07, modern, formats, cfworker }))
    : undefined;

const required = new Map<string, unknown>();

/** `specifier` through the synchronous require, once; undefined when it is not installed. */
function requireOnce<Module>(specifier: string): Module | undefined {
  if (required.has(specifier)) return required.get(specifier) as Module | undefined;
  let loaded: unknown;
  try {
    loaded = (requirePeer as NonNullable<typeof requirePeer>)(specifier);
  } catch (thrown) {
    if (!isNotFound(thrown)) throw thrown;
  }
  required.set(specifier, loaded);
  return loaded as Module | undefined;
}

function peer<K extends keyof Peers>(key: K, specifier: string): Peers[K] {
  if (imported !== undefined) return imported[key];
  const loaded = requireOnce<Peers[K] & { default?: unknown }>(specifier);
  // A CommonJS module required from ESM has no `default`: give it the shape `import()` would.
  if (loaded === undefined || key === 'cfworker') return loaded;
  return ('default' in loaded && loaded.default !== undefined ? loaded : { default: loaded }) as Peers[K];
}

/** ajv (both dialects) with ajv-formats, when installed; loaded on first call. */
export function ajvModules():
  | { draft07: typeof AjvDraft07; modern: typeof Ajv2020; formats: typeof AddFormats }
  | undefined {
  const draft07 = peer('draft07', 'ajv');
  const modern = peer('modern', 'ajv/dist/2020.js');
  const formats = peer('formats', 'ajv-formats');
  return draft07 && modern && formats
    ? { draft07: draft07.default, modern: modern.default, formats: formats.default }
    : undefined;
}

/** @cfworker/json-schema, when installed; loaded on first call. */
export function cfworkerModule(): typeof Cfworker | undefined {
  return peer('cfworker', '@cfworker/json-schema');
}

// Code Mode's tools are ESM, which not every synchronous require can load: imported with dispatch.
const toolsModule = await import('@agentd/codemode/tools').catch(absent);

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
