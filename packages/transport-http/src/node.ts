/**
 * @agentd/transport-http/node: the same endpoint on `node:http` — middleware for plain servers,
 * Express, Fastify and Hono on Node, and `serveHttp`, the ready-made server. This file is the
 * subpath's public API.
 */
export {
  createHttpTransport,
  /** @public */ type HttpTransport,
  type HttpTransportOptions,
  type ServeHttpOptions,
  serveHttp,
  /** @public */ type TlsOptions,
} from './http-transport.js';
export { createNodeHandler, /** @public */ type NodeHandler } from './node-handler.js';
