/** The Dispatcher's options (what `new Dispatcher(options)` and `new McpServer(info, options)` take). */
import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { ClientFilters } from './client-filters.js';
import type { CodeModeOptions } from './code-mode.js';
import type { MethodProvider } from './method-provider.js';
import type { ArgumentIssue, SchemaValidation } from './schema-compiler.js';
import type { ScopesOf } from './scopes.js';
import type { TasksOptions } from './task-runtime.js';

export interface DispatcherOptions {
  /** `classic`: one tool per operation named `{kind}_{id}`; `codemode`: exactly `search` + `execute`. Default classic. */
  exposure?: 'classic' | 'codemode';
  /** Filters for a peer (called per request; return the same object to reuse its compiled form). */
  filtersFor?: (peer: Peer) => ClientFilters | undefined;
  /** Entries per list page (default `DEFAULT_PAGE_SIZE`, 1000). */
  pageSize?: number;
  /** Scheme of operation schema resources `<scheme>://schema/<kind>/<id>` (default `mcp`); false disables them. */
  schemaScheme?: string | false;
  /** Modern-era cache hints. Lists default to 10 s; reads to 0 ms; scope `private` when `filtersFor` is set, else `public`. */
  cache?: { listTtlMs?: number; readTtlMs?: number; cacheScope?: 'public' | 'private' };
  /**
   * MRTR `requestState` sealing: HMAC key (default: random per process, so share one across
   * replicas), lifetime (default 10 min) and the clock.
   */
  requestState?: { key?: string | Uint8Array; ttlMs?: number; now?: () => number };
  /** Quiet period before surface-change listeners run (default 25 ms). */
  surfaceDebounceMs?: number;
  /** Internal errors (handler throws, failing listeners). Default `stderrLogger()` (JSON lines on stderr, `info` and up). */
  logger?: Logger;
  codeMode?: CodeModeOptions;
  /**
   * Declare `resources.subscribe` (default true): the core gates subscriptions with `canSubscribe`
   * and the embedder pushes changes with `core.notifyResourceUpdated(uri)`.
   */
  resourceSubscriptions?: boolean;
  /**
   * How JSON Schemas are checked: `compiled` (ajv code generation, fastest), `interpreted` (no
   * `new Function`: Cloudflare Workers and other runtimes that forbid code generation) or `auto`
   * (default: compiled where the runtime allows code generation, else interpreted).
   */
  schemaValidation?: SchemaValidation;
  /** Text of the isError result for arguments that fail the tool's schema. */
  formatInvalidArguments?: (issues: readonly ArgumentIssue[], toolName: string) => string;
  /** Tasks for tools registered with `task` (store, lifetimes); `false` turns tasks off. */
  tasks?: TasksOptions | false;
  /**
   * The scopes a peer holds, checked against definitions' `requiredScopes`; undefined for a peer
   * exempt from scopes. Default `defaultScopesOf`: OAuth peers their token's scopes, anonymous
   * peers none, other peers (static tokens, stdio, unix, vsock) exempt.
   */
  scopesOf?: ScopesOf;
  /**
   * Step-up authorization: a tools/call of a tool hidden from the caller only by its scopes is
   * answered insufficient scope (over HTTP: 403 with a `WWW-Authenticate` scope challenge)
   * instead of unknown tool. Default false (such tools stay indistinguishable from absent ones).
   */
  stepUp?: boolean;
  /**
   * Extensions this server offers, id → settings (`capabilities.extensions`), as
   * `declareExtension` adds them. Lifecycle shows each era the ones served in it.
   */
  extensions?: Readonly<Record<string, JsonObject>>;
  /**
   * Extensions written against the MethodProvider seam: their methods are served and what they
   * declare is offered, as `registerProvider` does (after the built-in tasks provider).
   */
  providers?: readonly MethodProvider[];
}

/**
 * Entries per list page by default: large enough that clients which never follow
 * `nextCursor` still see a whole 320-tool catalogue; bigger surfaces page.
 */
export const DEFAULT_PAGE_SIZE = 1000;
