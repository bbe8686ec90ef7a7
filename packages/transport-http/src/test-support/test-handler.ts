/** A small real Handler for transport tests: echo, progress, logging, sampling, one resource. */
import { type JsonObject, type JsonRpcRequest, WireError } from '@agentd/rpc-frame';
import type { Handler, RequestContext, ServerCapabilities } from '@agentd/server';

export const WATCHED_URI = 'test://watched';

const TOOLS = [
  {
    name: 'echo',
    description: 'Echoes its text argument',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  {
    name: 'progress',
    description: 'Sends three progress notifications, then answers',
    inputSchema: { type: 'object' },
  },
  { name: 'chatty', description: 'Logs at info three times, then answers', inputSchema: { type: 'object' } },
  {
    name: 'ask',
    description: 'Legacy: asks the client to sample, returns its text',
    inputSchema: { type: 'object' },
  },
  { name: 'wait', description: 'Waits until cancelled or 10 s', inputSchema: { type: 'object' } },
];

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function callTool(
  params: JsonObject,
  context: RequestContext,
  hooks: TestHandlerHooks,
): Promise<JsonObject> {
  const args = (params.arguments ?? {}) as JsonObject;
  switch (params.name) {
    case 'echo':
      return text(String(args.text ?? ''));
    case 'unencodable':
      // A handler bug: a BigInt cannot be written as JSON.
      return { content: [], count: BigInt(1) } as unknown as JsonObject;
    case 'progress':
      for (const progress of [0, 50, 100]) {
        if (context.progressToken !== undefined) {
          context.notify({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: context.progressToken, progress, total: 100 },
          });
        }
        await sleep(5);
      }
      return text('done');
    case 'chatty':
      for (const data of ['one', 'two', 'three']) {
        if (context.logLevel !== undefined) {
          context.notify({
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data },
          });
        }
      }
      return text('logged');
    case 'ask': {
      if (context.sendRequest === undefined)
        throw new WireError(-32021, 'needs sampling', { requiredCapabilities: { sampling: {} } });
      const result = await context.sendRequest('sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      });
      const content = result.content as { text?: string } | undefined;
      return text(`sampled: ${content?.text ?? ''}`);
    }
    case 'wait':
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          hooks.onAbort?.(context);
          resolve();
        });
      });
      return text('waited');
    default:
      throw new WireError(-32602, `Unknown tool: ${String(params.name)}`);
  }
}

const cache = { ttlMs: 0, cacheScope: 'private' };

export interface TestHandlerHooks {
  /** Called when a `wait` call is aborted (cancelled, disconnected or shut down). */
  onAbort?: (context: RequestContext) => void;
  /** Called with every request's context (to see the peer a transport made). */
  onRequest?: (context: RequestContext) => void;
}

export function testHandler(hooks: TestHandlerHooks = {}): Handler {
  return {
    capabilities(): ServerCapabilities {
      return { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, logging: {} };
    },
    canSubscribe: () => true,
    async handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject> {
      const params = request.params ?? {};
      hooks.onRequest?.(context);
      switch (request.method) {
        case 'tools/list':
          return { tools: TOOLS, ...cache };
        case 'tools/call':
          return callTool(params, context, hooks);
        case 'resources/list':
          return { resources: [{ uri: WATCHED_URI, name: 'watched' }], ...cache };
        case 'resources/read':
          if (params.uri !== WATCHED_URI)
            throw new WireError(-32602, 'Resource not found', { uri: params.uri });
          return {
            contents: [{ uri: WATCHED_URI, mimeType: 'text/plain', text: 'watched content' }],
            ...cache,
          };
        default:
          throw new WireError(-32601, `Method not found: ${request.method}`);
      }
    },
  };
}
