/** A small real Handler for the core's tests: `test/*` methods that echo, sleep, park, block, fail and ask the client. */
import { type JsonObject, JsonRpcErrorCode, type JsonRpcRequest, WireError } from '@agentd/rpc-frame';
import type { Handler, Peer, RequestContext, ServerCapabilities } from '@agentd/server';

interface TestHandlerState {
  connects: Peer[];
  disconnects: Array<{ peer: Peer; subscriptionsAtDisconnect: number }>;
  aborted: Array<string | number>;
}

export interface TestHandlerOptions {
  capabilities?: ServerCapabilities;
  /** Without it the handler has no canSubscribe. Default: admits test:// uris except test://forbidden. */
  canSubscribe?: ((uri: string, peer: Peer) => boolean | Promise<boolean>) | null;
  /** Counts subscriptions at onDisconnect (to prove they were removed first). */
  countSubscriptions?: (peer: Peer) => number;
}

export const FULL_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  logging: {},
};

const gates = new Map<string, () => void>();

// sleep-is-the-point: `test/slow` is a handler whose work takes the time the request asks for.
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
}

export function testHandler(options: TestHandlerOptions = {}): Handler & { state: TestHandlerState } {
  const state: TestHandlerState = { connects: [], disconnects: [], aborted: [] };
  const gate =
    options.canSubscribe === null
      ? undefined
      : (options.canSubscribe ??
        ((uri: string) => {
          if (uri === 'test://throws')
            throw new WireError(JsonRpcErrorCode.InvalidParams, 'no such resource', { uri });
          return uri.startsWith('test://') && uri !== 'test://forbidden';
        }));
  const handler: Handler & { state: TestHandlerState } = {
    state,
    capabilities: () => options.capabilities ?? FULL_CAPABILITIES,
    onConnect: (peer) => {
      state.connects.push(peer);
    },
    onDisconnect: (peer) => {
      state.disconnects.push({ peer, subscriptionsAtDisconnect: options.countSubscriptions?.(peer) ?? -1 });
    },
    handle: (request, context) => handle(request, context, state),
  };
  if (gate !== undefined) handler.canSubscribe = gate;
  return handler;
}

async function handle(
  request: JsonRpcRequest,
  ctx: RequestContext,
  state: TestHandlerState,
): Promise<JsonObject> {
  const params = request.params ?? {};
  switch (request.method) {
    case 'tools/list':
      return { tools: [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object' } }] };
    case 'test/echo':
      return {
        params,
        era: ctx.era,
        protocolVersion: ctx.protocolVersion,
        clientCapabilities: ctx.clientCapabilities,
        clientInfo: ctx.clientInfo ?? null,
        logLevel: ctx.logLevel ?? null,
        progressToken: ctx.progressToken ?? null,
        origin: ctx.peer.origin,
        transport: ctx.peer.transport,
        canAsk: ctx.sendRequest !== undefined,
      };
    case 'test/slow':
      await sleep(Number(params.ms ?? 50), ctx.signal);
      return { slept: params.ms ?? 50, tag: params.tag ?? null };
    case 'test/wait-for': {
      // Parks until a `test/release` with the same key: ordering without timing.
      const key = String(params.key);
      await new Promise<void>((resolve) => {
        gates.set(key, resolve);
        ctx.signal.addEventListener('abort', () => resolve());
      });
      return { released: key };
    }
    case 'test/release':
      gates.get(String(params.key))?.();
      gates.delete(String(params.key));
      return {};
    case 'test/block':
      // Parks until the request is cancelled (or its connection closes).
      if (!ctx.signal.aborted) {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      }
      state.aborted.push(ctx.requestId);
      throw new Error('aborted');
    case 'test/spread': {
      // Embedders copy and destructure contexts; getters and methods must survive both.
      const copy = { ...ctx };
      const { notify } = ctx;
      notify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'destructured' },
      });
      return { signal: copy.signal instanceof AbortSignal, canAsk: typeof copy.sendRequest === 'function' };
    }
    case 'test/boom':
      throw new Error('secret internals: /etc/passwd');
    case 'test/wire-error':
      throw new WireError(JsonRpcErrorCode.InvalidParams, 'bad thing', { field: 'x' });
    case 'test/progress':
      for (let i = 1; i <= 3; i += 1) {
        ctx.notify({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: ctx.progressToken ?? 'none', progress: i, total: 3 },
        });
      }
      return { done: true };
    case 'test/ask': {
      if (ctx.sendRequest === undefined)
        throw new WireError(JsonRpcErrorCode.InvalidRequest, 'cannot ask in this era');
      const answer = await ctx.sendRequest('roots/list', {});
      return { answer };
    }
    case 'test/bigint':
      return { n: 10n } as unknown as JsonObject;
    case 'test/big':
      return { data: 'x'.repeat(Number(params.bytes ?? 1024)) };
    default:
      throw new WireError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }
}
