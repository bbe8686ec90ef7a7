/** Parses a `subscriptions/listen` filter and reduces it to the subset this server honours. */
import { refuse, type ServerCapabilities } from '@agentd/lifecycle';
import { TASKS_EXTENSION } from '@agentd/lifecycle/tasks';
import { isJsonObject, type JsonObject } from '@agentd/rpc-frame';
import type { ListenFilter } from '@agentd/subscriptions';

const FLAGS = [
  ['toolsListChanged', 'tools'],
  ['promptsListChanged', 'prompts'],
  ['resourcesListChanged', 'resources'],
] as const;

const invalid = refuse.invalidParams;

/** Throws -32602 for a malformed filter. */
export function parseListenFilter(params: JsonObject | undefined): ListenFilter {
  const raw = params?.notifications;
  if (!isJsonObject(raw)) throw invalid('subscriptions/listen requires params.notifications (object)');
  const filter: ListenFilter = {};
  for (const [flag] of FLAGS) {
    const value = raw[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw invalid(`notifications.${flag} must be a boolean`);
    filter[flag] = value;
  }
  const uris = raw.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string' && u.length > 0)) {
      throw invalid('notifications.resourceSubscriptions must be an array of non-empty strings');
    }
    filter.resourceSubscriptions = uris as string[];
  }
  const taskIds = raw.taskIds;
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || !taskIds.every((t) => typeof t === 'string' && t.length > 0)) {
      throw invalid('notifications.taskIds must be an array of non-empty strings');
    }
    filter.taskIds = taskIds as string[];
  }
  return filter;
}

/** True when a server with these capabilities can deliver anything on a listen stream. */
export function deliversListenNotifications(capabilities: ServerCapabilities): boolean {
  return (
    FLAGS.some(([, kind]) => capabilities[kind]?.listChanged === true) ||
    capabilities.resources?.subscribe === true ||
    offersTasks(capabilities)
  );
}

/** The server offers the 2026-07-28 tasks extension (and so `notifications/tasks`). */
function offersTasks(capabilities: ServerCapabilities): boolean {
  const extensions = capabilities.extensions;
  return typeof extensions?.[TASKS_EXTENSION] === 'object' && extensions[TASKS_EXTENSION] !== null;
}

/**
 * The honoured subset: list_changed kinds only where the capability declares `listChanged`,
 * uris only when subscriptions are offered and `canSubscribe` admits them (refused ones are omitted).
 */
export async function honourListenFilter(
  requested: ListenFilter,
  capabilities: ServerCapabilities,
  canSubscribe: (uri: string) => Promise<boolean>,
  canWatchTask: (taskId: string) => Promise<boolean> = async () => false,
): Promise<ListenFilter> {
  const honoured: ListenFilter = {};
  for (const [flag, kind] of FLAGS) {
    if (requested[flag] === true && capabilities[kind]?.listChanged === true) honoured[flag] = true;
  }
  if (requested.resourceSubscriptions !== undefined && capabilities.resources?.subscribe === true) {
    const admitted: string[] = [];
    for (const uri of new Set(requested.resourceSubscriptions)) {
      if (await canSubscribe(uri)) admitted.push(uri);
    }
    honoured.resourceSubscriptions = admitted;
  }
  if (requested.taskIds !== undefined && offersTasks(capabilities)) {
    // Only the caller's own tasks: an id it cannot see is left out, exactly like an unknown one.
    const watched: string[] = [];
    for (const taskId of new Set(requested.taskIds)) if (await canWatchTask(taskId)) watched.push(taskId);
    honoured.taskIds = watched;
  }
  return honoured;
}
