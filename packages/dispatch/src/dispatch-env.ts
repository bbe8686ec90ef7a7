/** What the method implementations share: the catalogue, per-peer filters, cache hints, the state codec and the log. */
import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { Peer, RequestContext } from '@agentd/server';
import type { Catalogue } from './catalogue.js';
import type { CompiledFilters } from './client-filters.js';
import type { CacheHints } from './definitions.js';
import type { RequestStateCodec } from './request-state.js';
import type { ArgumentIssue } from './schema-compiler.js';
import type { TaskRuntime } from './task-runtime.js';
import type { ToolCallHook } from './tool-call-hooks.js';

export interface DispatchEnv {
  readonly catalogue: Catalogue;
  readonly codec: RequestStateCodec;
  readonly pageSize: number;
  /** Where internal details go; the peer only ever sees generic text. */
  readonly logger: Logger;
  filters(peer: Peer): CompiledFilters;
  /** Modern-era `ttlMs`/`cacheScope` for list results. */
  listCache(): Required<CacheHints>;
  /** Modern-era `ttlMs`/`cacheScope` for a read result. */
  readCache(hints: CacheHints | undefined): Required<CacheHints>;
  invalidArgumentsMessage(issues: readonly ArgumentIssue[], toolName: string): string;
  /** Tasks (both eras); undefined when the dispatcher was built with `tasks: false`. */
  readonly tasks?: TaskRuntime | undefined;
  /** `useToolCall` hooks, in registration order (empty: handlers run bare). */
  readonly toolHooks: readonly ToolCallHook[];
  /** Calls hidden only by scopes answer insufficient scope (step-up) instead of unknown tool. */
  readonly stepUp: boolean;
}

/**
 * Adds the modern-era cache hints (`ttlMs`, `cacheScope`) to a complete result, when given. The
 * envelope (`resultType`, the server info in `_meta`) is not the dispatcher's: the server core adds
 * it to every modern answer (lifecycle's `modernResult`), so it is set in one place.
 */
export function finishResult(
  context: RequestContext,
  result: JsonObject,
  cache?: Required<CacheHints>,
): JsonObject {
  if (cache === undefined || context.era !== 'modern') return result;
  const type = result.resultType;
  if (type === undefined || type === 'complete') {
    result.ttlMs = cache.ttlMs;
    result.cacheScope = cache.cacheScope;
  }
  return result;
}
