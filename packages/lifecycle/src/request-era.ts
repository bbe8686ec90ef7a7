/** The era classifier every transport uses: one place decides how a request is served. */
import { isJsonObject } from '@agentd/rpc-frame';
import { MetaKey } from './meta-keys.js';
import type { Era } from './versions.js';

/** Methods that exist only in the modern era: whatever their `_meta`, they are served (and checked) as modern. */
const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen']);

/** Methods removed in 2026-07-28: a modern request naming one is -32601. */
export const REMOVED_IN_MODERN: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * 'modern' when params._meta carries `io.modelcontextprotocol/protocolVersion` (or
 * `…/clientCapabilities`, a modern envelope missing its version), or the method exists only in
 * the modern era; else 'legacy'.
 */
export function requestEra(message: { method?: unknown; params?: unknown }): Era {
  if (typeof message.method === 'string' && MODERN_ONLY_METHODS.has(message.method)) return 'modern';
  const params = message.params;
  if (!isJsonObject(params)) return 'legacy';
  const meta = params._meta;
  if (!isJsonObject(meta)) return 'legacy';
  return MetaKey.protocolVersion in meta || MetaKey.clientCapabilities in meta ? 'modern' : 'legacy';
}
