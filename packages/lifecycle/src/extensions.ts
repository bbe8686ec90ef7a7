/**
 * Extension negotiation (SEP-2133) in both eras. Both sides name extensions in
 * `capabilities.extensions` (id → settings object): the server in `initialize` (legacy) and
 * `server/discover` (2026-07-28), the client in `initialize` (legacy, for the session) or in each
 * request's `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28, for that request).
 * Which extensions each era shows, and how a missing one is refused, is decided here.
 */
import { isJsonObject, type JsonObject, type WireError } from '@agentd/rpc-frame';
import { refuse } from './refusals.js';
import type { Era } from './versions.js';

/**
 * `{vendor-prefix}/{extension-name}`: a reverse-DNS prefix of dot-separated labels, a slash and a
 * name (SEP-2133), e.g. `io.modelcontextprotocol/ui`.
 */
const EXTENSION_ID_PATTERN =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

export function isExtensionId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= 256 && EXTENSION_ID_PATTERN.test(id);
}

/** Extensions that exist only in some eras; every other extension is offered in both. */
const EXTENSION_ERAS: ReadonlyMap<string, readonly Era[]> = new Map([
  // 2025-11-25 has its own `tasks` capability slot; the tasks extension is the 2026-07-28 form.
  ['io.modelcontextprotocol/tasks', ['modern']],
]);

/** Whether a server's extension `id` is shown (and honoured) in `era`. */
export function extensionServedIn(id: string, era: Era): boolean {
  return EXTENSION_ERAS.get(id)?.includes(era) ?? true;
}

/**
 * The settings the client declared for extension `id` (from this request's or this session's
 * client capabilities), or undefined when it did not declare it. Only an object declares an
 * extension: `true`, `null` or a string is treated as absent, as the spec types the map's values.
 */
export function clientExtension(clientCapabilities: JsonObject, id: string): JsonObject | undefined {
  const extensions = clientCapabilities.extensions;
  if (!isJsonObject(extensions) || !Object.hasOwn(extensions, id)) return undefined;
  const settings = extensions[id];
  return isJsonObject(settings) ? settings : undefined;
}

/** `-32021` naming the extension (and the settings it needs), for a request that needs it and did not declare it. */
export function missingExtension(id: string, settings: JsonObject = {}): WireError {
  return refuse.missingClientCapability({ extensions: { [id]: settings } });
}

/** The server's `extensions` map as `era` shows it; undefined when none is left. */
export function extensionsForEra(extensions: JsonObject | undefined, era: Era): JsonObject | undefined {
  if (!isJsonObject(extensions)) return undefined;
  const out: JsonObject = {};
  for (const [id, settings] of Object.entries(extensions)) if (extensionServedIn(id, era)) out[id] = settings;
  return Object.keys(out).length > 0 ? out : undefined;
}
