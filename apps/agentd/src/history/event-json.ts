/** Run events and records as the JSON a store keeps; one that has none is logged and not stored. */
import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { StoredRecord } from './history-types.js';

export function eventJson(event: JsonObject, runId: string, logger: Logger): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(event);
  } catch {}
  if (json === undefined) logger.warn('run event not stored: not JSON', { component: 'history', runId });
  return json;
}

/** A detached copy of a run record (later changes to the live one do not reach the store). */
export function recordCopy(record: StoredRecord, logger: Logger): StoredRecord | undefined {
  try {
    return JSON.parse(JSON.stringify(record)) as StoredRecord;
  } catch (error) {
    logger.warn('run record not stored: not JSON', { component: 'history', error: String(error) });
    return undefined;
  }
}
