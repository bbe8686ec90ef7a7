/** What the driver sends: the cheap load call and a verification script whose answers come from a local reference store. */
import { CatalogueStore } from './catalogue-store.js';

export interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The throughput/latency call (≈100-byte answer). */
export const LOAD_CALL: ToolCall = { name: 'user_get', arguments: { id: 'user-7' } };

/** Touches every operation kind, with state carried between calls, on a fresh server. */
export const VERIFY_SCRIPT: readonly ToolCall[] = [
  { name: 'team_list', arguments: { limit: 4 } },
  { name: 'project_create', arguments: { name: 'Bench rocket', priority: 2 } },
  { name: 'project_update', arguments: { id: 'project-13', status: 'closed' } },
  { name: 'project_get', arguments: { id: 'project-13', includeArchived: true } },
  { name: 'project_count', arguments: { status: 'closed' } },
  { name: 'project_search', arguments: { query: 'ROCKET', limit: 5 } },
  { name: 'invoice_delete', arguments: { id: 'invoice-2' } },
  { name: 'invoice_get', arguments: { id: 'invoice-2' } },
  { name: 'webhook_watch', arguments: { id: 'webhook-1', intervalSeconds: 30 } },
  { name: 'dashboard_list', arguments: { limit: 100, cursor: 'dashboard-9', includeArchived: true } },
];

/** A call that every validating server must refuse (the required `id` is missing). */
export const INVALID_CALL: ToolCall = { name: 'user_get', arguments: { fields: 'name' } };

/** Expected answer texts, computed by running the same calls on a fresh local store. */
export function expectedAnswers(): { load: string; verify: string[] } {
  const reference = new CatalogueStore();
  const load = reference.call(LOAD_CALL.name, LOAD_CALL.arguments);
  const verify = VERIFY_SCRIPT.map((call) => reference.call(call.name, call.arguments));
  return { load, verify };
}
