/** tools/list, resources/list, resources/templates/list and prompts/list: sorted, paged, filtered per peer. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import { toolExistsFor } from './call-tool.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import type { SortedList } from './sorted-list.js';
import { listedTool } from './task-call.js';

function page<T>(
  env: DispatchEnv,
  listName: string,
  list: SortedList<T>,
  params: JsonObject,
  keep: ((item: T) => boolean) | undefined,
  field: string,
  toEntry: (item: T) => unknown,
  context: RequestContext,
): JsonObject {
  const after = decodeCursor(listName, params.cursor);
  const { items, nextAfter } = list.page(after, env.pageSize, keep);
  const result: JsonObject = { [field]: items.map(toEntry) };
  if (nextAfter !== undefined) result.nextCursor = encodeCursor(listName, nextAfter);
  return finishResult(context, result, env.listCache());
}

export function listTools(env: DispatchEnv, params: JsonObject, context: RequestContext): JsonObject {
  const filters = env.filters(context.peer);
  const keep =
    filters.permissive && !env.catalogue.hasExtensionTools()
      ? undefined
      : (tool: { name: string; meta: boolean; onlyForExtension: string | undefined }) =>
          toolExistsFor(tool, context) &&
          (tool.meta ? filters.metaToolVisible(tool.name) : filters.toolVisible(tool.name));
  return page(
    env,
    'tools',
    env.catalogue.toolList(),
    params,
    keep,
    'tools',
    // Code Mode's search/execute are written per peer; every other tool by its own entry.
    (t) => t.entryFor?.(filters) ?? listedTool(t, context),
    context,
  );
}

export function listResources(env: DispatchEnv, params: JsonObject, context: RequestContext): JsonObject {
  const filters = env.filters(context.peer);
  const keep = filters.permissive
    ? undefined
    : (item: { entry: JsonObject; operation?: string }) =>
        filters.resourceVisible(item.entry.uri as string) &&
        (item.operation === undefined || filters.toolVisible(item.operation));
  return page(
    env,
    'resources',
    env.catalogue.resourceList(),
    params,
    keep,
    'resources',
    (r) => r.entry,
    context,
  );
}

export function listResourceTemplates(
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
): JsonObject {
  const filters = env.filters(context.peer);
  const keep = filters.permissive
    ? undefined
    : (item: { entry: JsonObject }) => filters.resourceVisible(item.entry.uriTemplate as string);
  const list = env.catalogue.templateList();
  return page(env, 'templates', list, params, keep, 'resourceTemplates', (t) => t.entry, context);
}

export function listPrompts(env: DispatchEnv, params: JsonObject, context: RequestContext): JsonObject {
  const filters = env.filters(context.peer);
  const keep = filters.permissive
    ? undefined
    : (item: { entry: JsonObject }) => filters.promptVisible(item.entry.name as string);
  return page(env, 'prompts', env.catalogue.promptList(), params, keep, 'prompts', (p) => p.entry, context);
}
