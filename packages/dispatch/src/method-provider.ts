/**
 * MethodProvider: the seam through which a Dispatcher serves methods it does not know itself. An
 * extension (Tasks, Skills, or a third party's) declares its methods and what it adds to the
 * capabilities of `initialize` / `server/discover`; the Dispatcher routes those methods to it and
 * runs them under the same middleware, era and `_meta` checks, slots and result envelope as its own.
 * A provider refuses with `WireError`s from lifecycle's catalogue (`refuse`) or its own.
 */
import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { RequestContext, ServerCapabilities } from '@agentd/server';

/** What a provider adds to the server's capabilities while it serves. */
export interface ProvidedCapabilities {
  /**
   * Core capabilities its methods rely on, declared even while the core has nothing of that kind
   * (skill files are resources, so a server offering skills declares `resources`).
   */
  readonly needs?: readonly ('tools' | 'resources' | 'prompts')[];
  /** Top-level capabilities of its own (2025-11-25's `tasks`). */
  readonly capabilities?: ServerCapabilities;
  /** `capabilities.extensions` entries: extension id -> settings. */
  readonly extensions?: Readonly<Record<string, JsonObject>>;
}

/** What the Dispatcher offers a provider when it registers. */
export interface ProviderHost {
  /** Call when what `capabilities()` or `active()` answers changed: the next request sees it. */
  changed(): void;
  /** The settings of extension `id` as declared with `declareExtension`, or undefined. */
  extension(id: string): JsonObject | undefined;
  /** The Dispatcher's logger: where internal details go (the peer only ever sees generic text). */
  readonly logger: Logger;
  /** What the request's peer may see of the resources: its client filters and scopes. */
  resources(context: RequestContext): ResourceVisibility;
  /**
   * One page of `entries` (sorted by key, in code-unit order) after the request's `cursor`, at
   * most the Dispatcher's `pageSize`, keeping only what `keep` accepts. Cursors name `list` and
   * the last key served: one minted for another list, or by no one, is refused with -32602.
   */
  page<T>(
    list: string,
    entries: readonly (readonly [string, T])[],
    cursor: unknown,
    keep?: (item: T) => boolean,
  ): ProviderPage<T>;
  /** Adds the 2026-07-28 cache hints (`ttlMs`, `cacheScope`) of a list or a read to a complete result. */
  finish(context: RequestContext, result: JsonObject, kind: 'list' | 'read'): JsonObject;
}

/** What a peer may see of the resources (`ProviderHost.resources`). */
export interface ResourceVisibility {
  /** True when nothing is hidden from this peer (then `visible` is always true). */
  readonly permissive: boolean;
  visible(uri: string): boolean;
}

/** A page of `ProviderHost.page`: the items, and the cursor of the next page when there is one. */
export interface ProviderPage<T> {
  readonly items: T[];
  readonly nextCursor: string | undefined;
}

export interface MethodProvider {
  /** Names the provider in registration errors and logs. */
  readonly name: string;
  /** Every method it may serve. Two providers (or a provider and the core) never share a method. */
  readonly methods: readonly string[];
  /** Registration: the host to signal changes through. Called once, before any request. */
  attach?(host: ProviderHost): void;
  /** Whether it serves `method` right now (default: always); a method it does not serve is -32601. */
  active?(method: string): boolean;
  /** Answers one of its methods; `params` is the request's params object (`{}` when absent). */
  handle(method: string, params: JsonObject, context: RequestContext): JsonObject | Promise<JsonObject>;
  /** Sees the params of a core method before it runs, to refuse what belongs to it (default: nothing). */
  inspect?(method: string, params: JsonObject): void;
  /** What it adds to the capabilities now; undefined adds nothing. Read again after `changed()`. */
  capabilities?(): ProvidedCapabilities | undefined;
  /** Releases what it holds when the Dispatcher closes. */
  close?(): void | Promise<void>;
}
