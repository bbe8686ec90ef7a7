/** The fixture as one fetch handler, for any runtime with Web `Request`/`Response` (Bun, Deno, Workers, Node). */
import { createFetchHandler, type FetchHandler } from '@agentd/transport-http';
import { createEverythingApp } from './everything.js';

let handler: FetchHandler | undefined;

/**
 * Built on the first request: Workers allow timers (the fixture's resource ticker, session
 * reaping) only while a request is being handled, not at module load.
 */
export function everythingFetch(request: Request): Promise<Response> {
  if (handler === undefined) {
    const app = createEverythingApp();
    // Short keep-alives: workerd and Deno notice a client gone only when writing to it, so a
    // cancelled long request is noticed within a few seconds (runtimes.slow.test.ts) instead of 30.
    handler = createFetchHandler(app.core, { toolParamHeaders: app.toolParamHeaders, keepAliveMs: 1_000 });
  }
  return handler(request);
}
