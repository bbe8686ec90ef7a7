/**
 * @agentd/redis: the scale-out seams of agentd's MCP packages on Redis (or Valkey). One
 * `RedisConnection` per replica; on it, the subscription registry's event bus, dispatch's
 * TaskStore, transport-http's SSE event store and the cluster's requestState key. This file is the package's public API.
 */
export type { RedisErrorCode } from './local-errors.js';
export { RedisConnection, type RedisConnectionOptions } from './redis-connection.js';
export { RedisEventBus, type RedisEventBusOptions, type RedisEventBusStats } from './redis-event-bus.js';
export { RedisEventStore, type RedisEventStoreOptions } from './redis-event-store.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';
export { type SharedRequestStateKeyOptions, sharedRequestStateKey } from './request-state-key.js';
