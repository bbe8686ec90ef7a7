/**
 * @agentd/subscriptions: the uri -> subscribers registry, bounded push writers (NDJSON) and
 * modern listen streams. This file is the package's public API.
 */
export { canonicalizeUri } from './canonical-uri.js';
export { type BusEvent, type EventBus, MemoryEventHub } from './event-bus.js';
export {
  type ListenFilter,
  ListenStream,
} from './listen-stream.js';
export { ndjsonWriter } from './ndjson-writer.js';
export type { PushWriter } from './push-writer.js';
export { StreamPushWriter } from './stream-writer.js';
export { SubscriptionRegistry } from './subscription-registry.js';
