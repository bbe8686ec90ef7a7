/**
 * A run status as JSON for the wire: one run asked for by handle, its texts bounded by the size
 * they are sent at (run-view.ts), undefined fields stripped so it stays structuredContent-clean.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import type { SubagentStatus } from '../supervisor/index.js';
import { runDetail } from './run-view.js';

export function statusJson(status: SubagentStatus): JsonObject {
  return runDetail(status);
}
