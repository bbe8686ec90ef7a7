/**
 * @agentd/subscriptions: the uri -> subscribers registry, bounded push writers (NDJSON) and
 * modern listen streams. This file is the package's public API.
 */
export { canonicalizeUri } from './canonical-uri.js';
export { type BusEvent, type EventBus, MemoryEventHub } from './event-bus.js';
export {
  type ListChangedKind,
  type ListenFilter,
  ListenStream,
  type ListenStreamOptions,
} from './listen-stream.js';
export { ndjsonWriter } from './ndjson-writer.js';
export type { PushWriter } from './push-writer.js';
export {
  DEFAULT_HIGH_WATER_BYTES,
  DEFAULT_MAX_BUFFERED_BYTES,
  StreamPushWriter,
  type StreamWriterOptions,
} from './stream-writer.js';
export { SubscriptionRegistry, type SubscriptionRegistryOptions } from './subscription-registry.js';
