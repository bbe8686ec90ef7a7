/** resources/read: static resources, operation schema resources and RFC 6570 templates, filtered per peer, with MRTR. */
import { refuse } from '@agentd/lifecycle';
import { type JsonObject, WireError } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import { toBase64 } from './base64.js';
import type { CompiledFilters } from './client-filters.js';
import { runClientInputRound } from './client-input-round.js';
import type { CacheHints, ResourceReadValue } from './definitions.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import type { HandlerContext } from './handler-context.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';

function resourceNotFound(context: RequestContext, uri: string): WireError {
  return refuse.resourceNotFound(uri, context.era);
}

interface Target {
  read: (context: HandlerContext) => ResourceReadValue | Promise<ResourceReadValue>;
  mimeType: string | undefined;
  cache: CacheHints | undefined;
}

/** What a URI resolves to for this peer; undefined for missing and hidden alike. */
export function resolveResource(env: DispatchEnv, filters: CompiledFilters, uri: string): Target | undefined {
  const { catalogue } = env;
  if (!filters.resourceVisible(uri)) return undefined;
  const resource = catalogue.resources.get(uri);
  if (resource) {
    const { definition } = resource;
    return {
      read: (ctx) => definition.read(uri, ctx),
      mimeType: definition.mimeType,
      cache: definition.cache,
    };
  }
  const op = catalogue.operationForSchemaUri(uri);
  if (op) {
    if (!filters.toolVisible(op.toolName)) return undefined;
    const text = JSON.stringify(op.definition.args, null, 2);
    return {
      read: () => ({ uri, mimeType: 'application/json', text }),
      mimeType: 'application/json',
      cache: undefined,
    };
  }
  for (const registered of catalogue.templateList().values()) {
    if (!filters.resourceVisible(registered.definition.uriTemplate)) continue;
    const variables = registered.template.match(uri);
    if (!variables) continue;
    const { definition } = registered;
    return {
      read: (ctx) => definition.read(uri, variables, ctx),
      mimeType: definition.mimeType,
      cache: definition.cache,
    };
  }
  return undefined;
}

export async function readResource(
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): Promise<JsonObject> {
  const { uri } = params;
  if (typeof uri !== 'string' || uri === '') throw refuse.invalidParams('uri must be a non-empty string');
  const target = resolveResource(env, env.filters(context.peer), uri);
  if (!target) throw resourceNotFound(context, uri);
  const outcome = await runClientInputRound(
    context,
    params,
    { method: 'resources/read', name: uri, arguments: {} },
    env.codec,
    async (ctx) => toContents(await target.read(ctx), uri, target.mimeType),
  ).catch((error: unknown) => {
    if (error instanceof WireError) throw error;
    env.logger.error('resource read failed', {
      uri,
      error: error instanceof Error ? error.stack : String(error),
    });
    throw refuse.internalError();
  });
  if (outcome.kind === 'input_required') return finishResult(context, outcome.result);
  if (outcome.kind === 'missing_capability') {
    throw refuse.capabilityNotDeclared(outcome.error.requiredCapabilities);
  }
  const contents = outcome.value;
  if (!contents) throw resourceNotFound(context, uri);
  return finishResult(context, { contents }, env.readCache(target.cache));
}

function toContents(
  value: ResourceReadValue,
  uri: string,
  mimeType: string | undefined,
): JsonObject[] | undefined {
  if (value === undefined || value === null) return undefined;
  const withDefaults = (item: JsonObject): JsonObject => {
    const out: JsonObject = { uri, ...item };
    if (out.mimeType === undefined && mimeType !== undefined) out.mimeType = mimeType;
    if (typeof out.text !== 'string' && typeof out.blob !== 'string') {
      throw dispatchError('invalid_result', `resource ${uri} returned contents without text or blob`);
    }
    return out;
  };
  if (typeof value === 'string') return [withDefaults({ text: value })];
  if (value instanceof Uint8Array) return [withDefaults({ blob: toBase64(value) })];
  const list = Array.isArray(value)
    ? value
    : isJsonObject(value) && Array.isArray(value.contents)
      ? value.contents
      : [value];
  if (list.length === 0) return undefined;
  return list.map((item) => {
    if (!isJsonObject(item))
      throw dispatchError('invalid_result', `resource ${uri} returned a non-object content item`);
    return withDefaults(item);
  });
}
