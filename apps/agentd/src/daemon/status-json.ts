/** A run status as JSON for the wire: undefined fields stripped so it stays structuredContent-clean. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { SubagentStatus } from '../supervisor/index.js';

export function statusJson(status: SubagentStatus): JsonObject {
  return JSON.parse(JSON.stringify(status)) as JsonObject;
}
