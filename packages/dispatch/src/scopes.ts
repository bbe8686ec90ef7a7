/**
 * Per-definition OAuth scopes (`requiredScopes` on tools, operations, resources, templates and
 * prompts): folded into a peer's CompiledFilters, so every place that asks "may this peer see
 * it" (lists, calls, reads, completions, Code Mode's search/execute, subscriptions) also asks
 * "does its token carry the scopes".
 */
import type { Peer } from '@agentd/server';
import type { Catalogue } from './catalogue.js';
import type { CompiledFilters } from './client-filters.js';
import { dispatchError } from './local-errors.js';

/**
 * The scopes a peer holds, or undefined when scopes do not apply to it (every scoped entry is
 * then visible). Default (`defaultScopesOf`): an OAuth peer holds its token's scopes, an
 * anonymous peer none; static bearer tokens, stdio, unix and vsock peers are not scope-checked
 * (their access control is the token list or the OS).
 */
export type ScopesOf = (peer: Peer) => readonly string[] | undefined;

export const defaultScopesOf: ScopesOf = (peer) => {
  if (peer.auth?.scheme === 'oauth') return peer.auth.scopes;
  return peer.origin === 'anonymous' ? [] : undefined;
};

// RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Validates a definition's `requiredScopes`; undefined when there are none. */
export function checkedScopes(what: string, scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw dispatchError('invalid_definition', `${what}: requiredScopes must be OAuth scope tokens (strings)`);
  }
  return scopes.length === 0 ? undefined : Object.freeze([...new Set(scopes as string[])]);
}

function lacking(required: readonly string[] | undefined, granted: ReadonlySet<string>): string[] {
  if (required === undefined) return [];
  return required.filter((scope) => !granted.has(scope));
}

const grantedSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function setOf(scopes: readonly string[]): ReadonlySet<string> {
  let set = grantedSets.get(scopes);
  if (set === undefined) {
    set = new Set(scopes);
    grantedSets.set(scopes, set);
  }
  return set;
}

/** `base` narrowed by scopes; `base` itself when scopes do not apply or nothing is scoped. */
export function withScopes(
  base: CompiledFilters,
  catalogue: Catalogue,
  granted: readonly string[] | undefined,
): CompiledFilters {
  if (granted === undefined || !catalogue.hasScopedEntries()) return base;
  const held = setOf(granted);
  const toolScopes = (name: string) =>
    (catalogue.tools.get(name) ?? catalogue.operations.get(name)?.tool)?.requiredScopes;
  const toolAllowed = (name: string) => lacking(toolScopes(name), held).length === 0;
  return {
    permissive: false,
    toolVisible: (name) => base.toolVisible(name) && toolAllowed(name),
    metaToolVisible: (name) => base.metaToolVisible(name),
    callRefusal: (name, args) => base.callRefusal(name, args),
    resourceVisible: (uri) =>
      base.resourceVisible(uri) &&
      lacking((catalogue.resources.get(uri) ?? catalogue.templates.get(uri))?.definition.requiredScopes, held)
        .length === 0,
    promptVisible: (name) =>
      base.promptVisible(name) &&
      lacking(catalogue.prompts.get(name)?.definition.requiredScopes, held).length === 0,
    missingScopes(name) {
      if (!base.toolVisible(name)) return undefined;
      const missing = lacking(toolScopes(name), held);
      return missing.length === 0 ? undefined : missing;
    },
  };
}
