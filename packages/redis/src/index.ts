/**
 * @agentd/redis: the scale-out seams of the MCP packages on Redis (or Valkey). One
 * `RedisConnection` per replica; on it, the subscription registry's event bus, the TaskStore seam
 * of `@agentd/server`, transport-http's SSE event store and the cluster's requestState key. Each
 * constructor's options are typed by its parameter. This file is the package's public API.
 * `@public` tags the names no code in this repository imports: they are for users (knip keeps them).
 */
/** @public */
export type { RedisErrorCode } from './local-errors.js';
export { RedisConnection } from './redis-connection.js';
export { RedisEventBus } from './redis-event-bus.js';
export { RedisEventStore } from './redis-event-store.js';
export { RedisTaskStore } from './redis-task-store.js';
export { sharedRequestStateKey } from './request-state-key.js';
