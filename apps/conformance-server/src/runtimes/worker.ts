/**
 * The fixture as a Cloudflare Worker (bundled, then run by workerd): the whole "everything"
 * server — Dispatcher with its registered tools, prompts and resources, ServerCore, fetch
 * handler. workerd forbids code generation from strings, so the Dispatcher checks arguments
 * with its interpreting JSON Schema validator there (chosen on its own, no option needed).
 */
import { everythingFetch } from '../fetch-app.js';

// The Workers module format requires a default export (the one exception to named exports).
/** @public the workerd entry: the runtime calls it */
export default { fetch: (request: Request) => everythingFetch(request) };
