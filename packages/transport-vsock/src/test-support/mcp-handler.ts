/** Tests only: a Handler with a subscribable resource, a gated tool, a cancellable tool and a big answer. */
import { ErrorCode, type JsonObject, WireError } from '@agentd/rpc-frame';
import type { Handler, Peer, RequestContext } from '@agentd/server';

export interface McpHandlerState {
  connects: Peer[];
  disconnects: Peer[];
  /** Request ids whose `block` call saw its signal abort. */
  aborted: Array<string | number>;
}

/** Resources under this scheme can be subscribed to; anything else is refused. */
export const RESOURCE_SCHEME = 'agent://';

const TOOLS = [
  { name: 'echo', description: 'Returns its text argument.', inputSchema: { type: 'object' } },
  {
    name: 'wait',
    description: 'Answers once `release` is called with the same key.',
    inputSchema: { type: 'object' },
  },
  { name: 'release', description: 'Releases a waiting call.', inputSchema: { type: 'object' } },
  { name: 'block', description: 'Runs until cancelled.', inputSchema: { type: 'object' } },
  { name: 'big', description: 'Answers `bytes` characters.', inputSchema: { type: 'object' } },
];

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

/** Builds the handler; `gates` are per handler so tests never share state. */
export function mcpHandler(): Handler & { state: McpHandlerState } {
  const state: McpHandlerState = { connects: [], disconnects: [], aborted: [] };
  const gates = new Map<string, () => void>();

  const callTool = async (name: unknown, args: Record<string, unknown>, ctx: RequestContext) => {
    switch (name) {
      case 'echo':
        return text(String(args.text ?? ''));
      case 'wait': {
        // Parks until `release` with the same key: ordering without timing.
        const key = String(args.key);
        await new Promise<void>((resolve) => {
          gates.set(key, resolve);
          ctx.signal.addEventListener('abort', () => resolve());
        });
        return text(`released ${key}`);
      }
      case 'release':
        gates.get(String(args.key))?.();
        gates.delete(String(args.key));
        return text('ok');
      case 'block':
        await new Promise<void>((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            state.aborted.push(ctx.requestId);
            reject(new Error('aborted'));
          }),
        );
        return text('unreachable');
      case 'big':
        return text('x'.repeat(Number(args.bytes ?? 1024)));
      default:
        throw new WireError(ErrorCode.InvalidParams, `Unknown tool: ${String(name)}`);
    }
  };

  return {
    state,
    capabilities: () => ({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    }),
    canSubscribe: (uri) => uri.startsWith(RESOURCE_SCHEME),
    onConnect: (peer) => {
      state.connects.push(peer);
    },
    onDisconnect: (peer) => {
      state.disconnects.push(peer);
    },
    async handle(request, ctx) {
      const params = (request.params ?? {}) as { name?: unknown; arguments?: Record<string, unknown> };
      if (request.method === 'tools/list') return { tools: TOOLS };
      if (request.method === 'tools/call') return callTool(params.name, params.arguments ?? {}, ctx);
      throw new WireError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    },
  };
}
