/** A run event as the JSON a store keeps; an event that has none is logged and not stored. */
import type { JsonObject, Logger } from '@agentd/rpc-frame';

export function eventJson(event: JsonObject, runId: string, logger: Logger): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(event);
  } catch {}
  if (json === undefined) logger.warn('run event not stored: not JSON', { component: 'history', runId });
  return json;
}
