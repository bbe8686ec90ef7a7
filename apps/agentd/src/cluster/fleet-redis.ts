/**
 * The few things the fleet needs from a Redis link: raw commands, publish, subscribe, and word
 * of each reconnect. `@agentd/redis`'s RedisConnection has exactly this surface.
 */
export interface FleetRedis {
  /** Any command, e.g. `['HGET', key, field]`; rejects at once while Redis is unreachable. */
  command(args: readonly (string | number)[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<number>;
  /** Re-subscribed after every reconnect; resolves once active, to the unsubscribe. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** Called each time a client (re)connects. */
  onReady(listener: () => void): () => void;
  /** A pub/sub message the subscriber cannot use: counted by channel and logged at warn. */
  dropMalformed(channel: string, reason: string): void;
}

/** A reply that is a bulk string, else undefined (nil, or not ours). */
export function text(reply: unknown): string | undefined {
  return typeof reply === 'string' ? reply : undefined;
}

/** An array reply of strings (SMEMBERS, HKEYS); anything else reads as empty. */
export function strings(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.filter((v): v is string => typeof v === 'string') : [];
}
