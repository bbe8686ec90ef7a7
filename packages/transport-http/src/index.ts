/**
 * @agentd/transport-http: Streamable HTTP for MCP, legacy sessions and the stateless 2026-07-28
 * era on one endpoint. This entry is runtime-neutral (no `node:` import: Node, Bun, Deno,
 * Workers); the Node server and middleware are in `@agentd/transport-http/node`, the JWT
 * verifier in `@agentd/transport-http/jwt`. This file is the package's public API.
 */
// Header mirroring rules live in @agentd/lifecycle; re-exported for embedders that configure `toolParamHeaders`.
export type { /** @public */ AuthOptions } from './auth-gate.js';
export type {
  /** @public */ Authenticator,
  /** @public */ BearerToken,
  /** @public */ Principal,
} from './bearer-auth.js';
export { /** @public */ bearerTokenOf, /** @public */ createAuthenticator } from './bearer-auth.js';
export type { EventStore, StoredEvent, StreamOwner } from './event-store.js';
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './fetch-handler.js';
export type { /** @public */ TransportHttpErrorCode } from './local-errors.js';
export { MemoryEventStore, /** @public */ type MemoryEventStoreOptions } from './memory-event-store.js';
export type {
  /** @public */ OAuthResourceOptions,
  /** @public */ TokenRequest,
  /** @public */ VerifyToken,
} from './oauth-options.js';
export type { McpHttpOptions } from './options.js';
