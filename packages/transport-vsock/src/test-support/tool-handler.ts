/** Tests only: a tiny domain Handler with two tools (echo, slow) and a whoami that shows the Peer. */
import { ErrorCode, type JsonObject, WireError } from '@agentd/rpc-frame';
import type { Handler, Peer } from '@agentd/server';

const TOOLS = [
  {
    name: 'echo',
    description: 'Returns its text argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  {
    name: 'slow',
    description: 'Answers after ms milliseconds.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  },
  { name: 'whoami', description: 'Describes the calling peer.', inputSchema: { type: 'object' } },
];

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
}

export function toolHandler(): Handler & { peers: Peer[] } {
  const peers: Peer[] = [];
  return {
    peers,
    capabilities: () => ({ tools: { listChanged: false } }),
    onConnect: (peer) => {
      peers.push(peer);
    },
    async handle(request, context) {
      if (request.method === 'tools/list') return { tools: TOOLS };
      if (request.method !== 'tools/call')
        throw new WireError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      const params = (request.params ?? {}) as { name?: unknown; arguments?: Record<string, unknown> };
      const args = params.arguments ?? {};
      switch (params.name) {
        case 'echo':
          return text(String(args.text ?? ''));
        case 'slow':
          await sleep(Number(args.ms ?? 50), context.signal);
          return text(`slept ${Number(args.ms ?? 50)}`);
        case 'whoami': {
          const { origin, transport, attributes } = context.peer;
          return {
            ...text(origin),
            structuredContent: { origin, transport, attributes: { ...attributes }, era: context.era },
          };
        }
        default:
          throw new WireError(ErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
      }
    },
  };
}
