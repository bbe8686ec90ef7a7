/** `createFetchHandler`: the whole Streamable HTTP endpoint as `(Request) => Promise<Response>`, on any runtime. */
import type { ServerCore } from '@agentd/server';
import { FetchExchange } from './fetch-exchange.js';
import { createEndpoint } from './mcp-endpoint.js';
import type { McpHttpOptions } from './options.js';

export interface FetchHandlerOptions extends McpHttpOptions {
  /** The client's address for `peer.attributes.remoteAddress` (hosts expose it differently). */
  remoteAddress?: (request: Request) => string | undefined;
}

export interface FetchHandler {
  (request: Request): Promise<Response>;
  /** Open legacy sessions. */
  readonly sessionCount: number;
  /** Requests being answered right now (listen and legacy POST streams included). */
  readonly activeRequests: number;
  /** Ends streams (listen streams with their final result), lets requests drain until the deadline, then cuts. */
  close(deadlineMs?: number): Promise<void>;
}

const NOT_FOUND = JSON.stringify({ error: 'not found' });

/**
 * Other paths get a JSON 404, so the handler can be the whole server (Workers, `Deno.serve`,
 * `Bun.serve`) or sit behind a router that only sends it the MCP path.
 */
export function createFetchHandler(core: ServerCore, options: FetchHandlerOptions = {}): FetchHandler {
  const endpoint = createEndpoint(core, options);
  const remoteAddress = options.remoteAddress;
  const handler = (request: Request): Promise<Response> => {
    const exchange = new FetchExchange(request, remoteAddress?.(request));
    if (!endpoint.owns(exchange.path)) {
      return Promise.resolve(
        new Response(NOT_FOUND, { status: 404, headers: { 'content-type': 'application/json' } }),
      );
    }
    endpoint.serve(exchange, exchange).then(
      () => exchange.settle(),
      () => exchange.settle(),
    );
    return exchange.response;
  };
  return Object.defineProperties(handler, {
    sessionCount: { get: () => endpoint.sessionCount },
    activeRequests: { get: () => endpoint.activeRequests },
    close: { value: (deadlineMs?: number) => endpoint.close(deadlineMs) },
  }) as FetchHandler;
}
