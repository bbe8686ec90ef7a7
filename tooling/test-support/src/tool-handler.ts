/**
 * A small real MCP Handler for transport tests: tools (echo, progress, logging, sampling, waits,
 * big answers, the calling peer), one readable resource, and a record of connects and aborts.
 */
import { type JsonObject, JsonRpcErrorCode, type JsonRpcRequest, WireError } from '@agentd/rpc-frame';
import type { Handler, Peer, RequestContext, ServerCapabilities } from '@agentd/server';

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
  {
    name: 'park',
    description: 'Answers once `release` is called with the same key',
    inputSchema: { type: 'object' },
  },
  { name: 'release', description: 'Releases a parked call', inputSchema: { type: 'object' } },
  { name: 'block', description: 'Runs until cancelled, then fails', inputSchema: { type: 'object' } },
  {
    name: 'slow',
    description: 'Answers after ms milliseconds',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  },
  { name: 'big', description: 'Answers `bytes` characters', inputSchema: { type: 'object' } },
  { name: 'whoami', description: 'Describes the calling peer', inputSchema: { type: 'object' } },
];

interface ToolHandlerState {
  connects: Peer[];
  disconnects: Peer[];
  /** Request ids whose `wait` or `block` call saw its signal abort. */
  aborted: Array<string | number>;
}

export interface ToolHandlerOptions {
  /** Called when a `wait` call is aborted (cancelled, disconnected or shut down). */
  onAbort?: (context: RequestContext) => void;
  /** Called with every request's context (to see the peer a transport made). */
  onRequest?: (context: RequestContext) => void;
  /** The subscription gate. Default: every uri is admitted. */
  canSubscribe?: (uri: string) => boolean;
}

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

const cache = { ttlMs: 0, cacheScope: 'private' };

// sleep-is-the-point: `slow` and `progress` are tools whose work takes time, as a real tool's does.
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
}

/** Builds the handler; its parked calls and records are its own, so tests never share state. */
export function toolHandler(options: ToolHandlerOptions = {}): Handler & { state: ToolHandlerState } {
  const state: ToolHandlerState = { connects: [], disconnects: [], aborted: [] };
  const gates = new Map<string, () => void>();

  const callTool = async (params: JsonObject, context: RequestContext): Promise<JsonObject> => {
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
        // Parks until the call is cancelled (or its connection closes).
        await new Promise<void>((resolve) => {
          const cancelled = () => {
            state.aborted.push(context.requestId);
            options.onAbort?.(context);
            resolve();
          };
          if (context.signal.aborted) cancelled();
          else context.signal.addEventListener('abort', cancelled);
        });
        return text('waited');
      case 'park': {
        // Parks until `release` with the same key: ordering without timing.
        const key = String(args.key);
        await new Promise<void>((resolve) => {
          gates.set(key, resolve);
          context.signal.addEventListener('abort', () => resolve());
        });
        return text(`released ${key}`);
      }
      case 'release':
        gates.get(String(args.key))?.();
        gates.delete(String(args.key));
        return text('ok');
      case 'block':
        await new Promise<void>((_, reject) =>
          context.signal.addEventListener('abort', () => {
            state.aborted.push(context.requestId);
            reject(new Error('aborted'));
          }),
        );
        return text('unreachable');
      case 'slow': {
        const ms = Number(args.ms ?? 50);
        await sleep(ms, context.signal);
        return text(`slept ${ms}`);
      }
      case 'big':
        return text('x'.repeat(Number(args.bytes ?? 1024)));
      case 'whoami': {
        const { origin, transport, attributes } = context.peer;
        return {
          ...text(origin),
          structuredContent: { origin, transport, attributes: { ...attributes }, era: context.era },
        };
      }
      default:
        throw new WireError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
    }
  };

  return {
    state,
    capabilities(): ServerCapabilities {
      return { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, logging: {} };
    },
    canSubscribe: (uri) => options.canSubscribe?.(uri) ?? true,
    onConnect: (peer) => {
      state.connects.push(peer);
    },
    onDisconnect: (peer) => {
      state.disconnects.push(peer);
    },
    async handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject> {
      const params = request.params ?? {};
      options.onRequest?.(context);
      switch (request.method) {
        case 'tools/list':
          return { tools: TOOLS, ...cache };
        case 'tools/call':
          return callTool(params, context);
        case 'resources/list':
          return { resources: [{ uri: WATCHED_URI, name: 'watched' }], ...cache };
        case 'resources/read':
          if (params.uri !== WATCHED_URI)
            throw new WireError(JsonRpcErrorCode.InvalidParams, 'Resource not found', { uri: params.uri });
          return {
            contents: [{ uri: WATCHED_URI, mimeType: 'text/plain', text: 'watched content' }],
            ...cache,
          };
        default:
          throw new WireError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      }
    },
  };
}
