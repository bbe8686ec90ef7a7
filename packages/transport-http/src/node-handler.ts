/** `createNodeHandler`: the MCP endpoint as `node:http` middleware for plain servers, Express, Fastify and Hono on Node. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerCore } from '@agentd/server';
import { createEndpoint, type McpEndpoint } from './mcp-endpoint.js';
import { NodeExchange } from './node-exchange.js';
import type { McpHttpOptions } from './options.js';
import { pathOf } from './route-request.js';

export interface NodeHandler {
  /** Serves the endpoint's paths; any other path goes to `next()` when given, else 404. */
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /** Open legacy sessions. */
  readonly sessionCount: number;
  /** Requests being answered right now (listen and legacy POST streams included). */
  readonly activeRequests: number;
  /** Ends streams (listen streams with their final result), lets requests drain until the deadline, then cuts. */
  close(deadlineMs?: number): Promise<void>;
}

const NOT_FOUND = JSON.stringify({ error: 'not found' });

/** Serves one Node request on `endpoint`, or hands it to `next` (404 without) when the path is not its. */
export function serveNodeRequest(
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
): void {
  // Express mounts rewrite req.url; originalUrl keeps the path the client asked for.
  const path = pathOf((req as { originalUrl?: string }).originalUrl ?? req.url);
  if (!endpoint.owns(path)) {
    if (next !== undefined) {
      next();
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json', 'content-length': NOT_FOUND.length });
    res.end(NOT_FOUND);
    return;
  }
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  const exchange = new NodeExchange(req, res, path, secure);
  void endpoint.serve(exchange, exchange);
}

export function createNodeHandler(core: ServerCore, options: McpHttpOptions = {}): NodeHandler {
  const endpoint = createEndpoint(core, options);
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void =>
    serveNodeRequest(endpoint, req, res, next);
  return Object.defineProperties(handler, {
    sessionCount: { get: () => endpoint.sessionCount },
    activeRequests: { get: () => endpoint.activeRequests },
    close: { value: (deadlineMs?: number) => endpoint.close(deadlineMs) },
  }) as NodeHandler;
}
