/**
 * MCP Apps UI resources: `registerAppResource` publishes a `ui://` HTML view
 * (`text/html;profile=mcp-app`, `_meta.ui` csp/permissions/domain/prefersBorder) and offers the
 * `io.modelcontextprotocol/ui` extension. The per-dispatcher registry lets app tools check their link.
 */
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppResourceUi,
  appResourceUiProblem,
  isUiUri,
  looksLikeHtmlDocument,
} from '@agentd/lifecycle/apps';
import type { JsonObject } from '@agentd/rpc-frame';
import type { CacheHints } from './definitions.js';
import type { Dispatcher } from './dispatcher.js';
import { type DispatcherHost, dispatcherOf } from './dispatcher-host.js';
import type { HandlerContext } from './handler-context.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';

export interface AppResourceDefinition {
  /** `ui://…` (APP-001). */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /**
   * The view: a complete HTML5 document (APP-004), or a function that builds it for each read
   * (checked then: a read that is not an HTML document fails with an internal error, logged).
   */
  html: string | ((context: HandlerContext) => string | Promise<string>);
  /** `_meta.ui`, on both the `resources/list` entry and the read content (hosts read the latter first). */
  ui?: AppResourceUi;
  /** More `_meta` for the list entry and the content item. */
  meta?: JsonObject;
  /** Modern-era cache hints for reads (views are usually static: a long `ttlMs` lets hosts prefetch). */
  cache?: CacheHints;
}

/** What the app tools of one dispatcher link to: ui uri → the names of the tools linking it. */
interface AppRegistry {
  readonly links: Map<string, Set<string>>;
  declared: boolean;
}

const registries = new WeakMap<Dispatcher, AppRegistry>();

/** The registry of `dispatcher`'s UI resources (created empty on first use). */
export function appRegistryOf(dispatcher: Dispatcher): AppRegistry {
  let registry = registries.get(dispatcher);
  if (registry === undefined) {
    registry = { links: new Map(), declared: false };
    registries.set(dispatcher, registry);
  }
  return registry;
}

/** Offers `io.modelcontextprotocol/ui` once per dispatcher (unless the embedder already declared its own settings). */
export function declareApps(dispatcher: Dispatcher, registry: AppRegistry): void {
  if (registry.declared) return;
  registry.declared = true;
  if (dispatcher.capabilities().extensions?.[APPS_EXTENSION] === undefined)
    dispatcher.declareExtension(APPS_EXTENSION, {});
}

/**
 * Registers a UI resource on an McpServer or a Dispatcher. Throws LocalError `invalid_definition` for a uri outside `ui://`, a
 * static `html` that is not an HTML document, or a malformed `ui`; `duplicate` for a taken uri.
 * The returned function removes it, and throws `invalid_definition` while app tools still link it.
 */
export function registerAppResource(host: DispatcherHost, definition: AppResourceDefinition): () => boolean {
  const dispatcher = dispatcherOf(host, 'registerAppResource');
  if (typeof definition !== 'object' || definition === null)
    throw dispatchError(
      'invalid_definition',
      "registerAppResource(server, { uri, name, html, … }) takes one definition object (ext-apps' (server, name, uri, config, read) is server.registerAppResource(name, uri, config, html))",
    );
  const { uri, html } = definition;
  if (!isUiUri(uri))
    throw dispatchError('invalid_definition', `UI resource uri ${JSON.stringify(uri)} must start with ui://`);
  if (typeof html !== 'string' && typeof html !== 'function')
    throw dispatchError('invalid_definition', `UI resource ${uri}: html must be a string or a function`);
  if (typeof html === 'string' && !looksLikeHtmlDocument(html))
    throw dispatchError(
      'invalid_definition',
      `UI resource ${uri}: html must be an HTML5 document (<!doctype html> or <html>)`,
    );
  if (definition.meta !== undefined && !isJsonObject(definition.meta))
    throw dispatchError('invalid_definition', `UI resource ${uri}: meta must be an object`);
  const problem = definition.ui === undefined ? undefined : appResourceUiProblem(definition.ui);
  if (problem !== undefined) throw dispatchError('invalid_definition', `UI resource ${uri}: ${problem}`);
  const meta: JsonObject = { ...definition.meta };
  if (definition.ui !== undefined) meta.ui = structuredClone(definition.ui) as unknown as JsonObject;
  const hasMeta = Object.keys(meta).length > 0;
  const registry = appRegistryOf(dispatcher);
  const remove = dispatcher.registerResource({
    uri,
    name: definition.name,
    ...(definition.title === undefined ? {} : { title: definition.title }),
    ...(definition.description === undefined ? {} : { description: definition.description }),
    mimeType: APP_MIME_TYPE,
    ...(hasMeta ? { meta } : {}),
    ...(definition.cache === undefined ? {} : { cache: definition.cache }),
    read: async (_uri, context) => {
      const text = typeof html === 'string' ? html : await html(context);
      // A dynamic view that is not HTML is the server's bug: an internal error, logged, never sent.
      if (typeof text !== 'string' || !looksLikeHtmlDocument(text))
        throw dispatchError('invalid_result', `UI resource ${uri}: html() did not return an HTML5 document`);
      return { uri, mimeType: APP_MIME_TYPE, text, ...(hasMeta ? { _meta: meta } : {}) };
    },
  });
  registry.links.set(uri, new Set());
  declareApps(dispatcher, registry);
  return () => {
    const linked = registry.links.get(uri);
    if (linked !== undefined && linked.size > 0) {
      throw dispatchError(
        'invalid_definition',
        `UI resource ${uri} is still linked by tool(s) ${[...linked].join(', ')}: remove them first`,
      );
    }
    registry.links.delete(uri);
    return remove();
  };
}
