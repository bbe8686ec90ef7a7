/**
 * A whole agentd server as a Cloudflare Worker (bundled, then run by workerd): ServerCore, the
 * fetch handler and a Dispatcher. workerd forbids generating code from strings, and the
 * Dispatcher's argument validation (Ajv) compiles schemas that way, so tools here are served by a
 * small Handler of their own; the Dispatcher module still loads and answers what needs no schema.
 */
import { Dispatcher } from '@agentd/dispatch';
import type { JsonObject, JsonRpcRequest } from '@agentd/rpc-frame';
import { WireError } from '@agentd/rpc-frame';
import { createServerCore, type Handler, silentLogger } from '@agentd/server';
import { createFetchHandler, type FetchHandler } from '@agentd/transport-http';

const TOOLS = [
  {
    name: 'test_simple_text',
    description: 'Tests simple text content response',
    inputSchema: { type: 'object', properties: {} },
  },
];

function workerHandler(dispatcher: Dispatcher): Handler {
  return {
    capabilities: () => ({ ...dispatcher.capabilities(), tools: { listChanged: false } }),
    async handle(request: JsonRpcRequest, context): Promise<JsonObject> {
      if (request.method === 'tools/list') return { tools: TOOLS };
      if (request.method === 'tools/call') {
        if (request.params?.name !== 'test_simple_text')
          throw new WireError(-32602, `Unknown tool: ${String(request.params?.name)}`);
        return { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] };
      }
      return dispatcher.handle(request, context);
    },
  };
}

let handler: FetchHandler | undefined;

function fetchHandler(): FetchHandler {
  if (handler === undefined) {
    const core = createServerCore({
      handler: workerHandler(new Dispatcher({ logger: { error: () => undefined } })),
      serverInfo: { name: 'agentd-worker', version: '0.0.0' },
      logger: silentLogger,
    });
    handler = createFetchHandler(core);
  }
  return handler;
}

// The Workers module format requires a default export (the one exception to named exports).
export default { fetch: (request: Request) => fetchHandler()(request) };
