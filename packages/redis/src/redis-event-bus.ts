/**
 * The subscription registry's bus on Redis pub/sub: one channel per deployment, every replica a
 * member. Delivery is at most once: an event published while a member's pub/sub link is down is
 * lost for that member (and one raised while the publisher's own link is down reaches only its
 * local writers); once the link is back the subscription is re-established and delivery resumes.
 */
import { randomBytes } from 'node:crypto';
import { isJsonObject } from '@agentd/rpc-frame';
import type { BusEvent, EventBus } from '@agentd/subscriptions';
import { redisError } from './local-errors.js';
import { clientsOf } from './raw-client.js';
import type { RedisConnection } from './redis-connection.js';

export interface RedisEventBusOptions {
  /** Channel name. Default `<prefix>events`. */
  channel?: string;
}

/** Counters for metrics and tests. */
export interface RedisEventBusStats {
  published: number;
  received: number;
  /** Not published: Redis was unreachable (the local delivery happened). */
  dropped: number;
  /** Received but not a bus event (another writer on the channel): dropped, and logged by the connection (`RedisConnection.malformed`). */
  malformed: number;
}

interface Envelope {
  /** The publishing member. */
  o: string;
  e?: BusEvent;
  /** A probe: `ready()` waits to hear its own. */
  p?: string;
}

function isBusEvent(value: unknown): value is BusEvent {
  if (!isJsonObject(value)) return false;
  if (value.kind === 'updated') return typeof value.uri === 'string' && typeof value.keep === 'boolean';
  const message = value.message;
  const isNote = isJsonObject(message) && typeof message.method === 'string' && !('id' in message);
  if (value.kind === 'broadcast') return isNote;
  return (
    value.kind === 'task' &&
    isNote &&
    typeof value.taskId === 'string' &&
    (value.creator === undefined || typeof value.creator === 'string')
  );
}

export class RedisEventBus implements EventBus {
  /** This member's id (events it published are not delivered back to it). */
  readonly memberId = randomBytes(12).toString('base64url');
  readonly channel: string;
  readonly stats: RedisEventBusStats = { published: 0, received: 0, dropped: 0, malformed: 0 };
  readonly #connection: RedisConnection;
  readonly #listeners = new Set<(event: BusEvent) => void>();
  readonly #probes = new Map<string, () => void>();
  #closed = false;
  #unsubscribe: (() => Promise<void>) | undefined;

  private constructor(connection: RedisConnection, channel: string) {
    this.#connection = connection;
    this.channel = channel;
  }

  /** Subscribes to the channel; resolves once the subscription is active. */
  static async create(
    connection: RedisConnection,
    options: RedisEventBusOptions = {},
  ): Promise<RedisEventBus> {
    const bus = new RedisEventBus(connection, options.channel ?? `${connection.prefix}events`);
    bus.#unsubscribe = await connection.subscribe(bus.channel, (message) => bus.#receive(message));
    return bus;
  }

  publish(event: BusEvent): void {
    this.#send({ o: this.memberId, e: event }, true);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves once this member hears its own probe through Redis: both links are up and the
   * subscription is active (after a Redis restart, once it has been re-established). Retries
   * until `timeoutMs`, then rejects with `redis_unavailable`.
   */
  async ready(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#closed) {
      const nonce = randomBytes(9).toString('base64url');
      const heard = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 250);
        this.#probes.set(nonce, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      this.#send({ o: this.memberId, p: nonce }, false);
      const ok = await heard;
      this.#probes.delete(nonce);
      if (ok) return;
      if (Date.now() > deadline) break;
    }
    throw redisError('redis_unavailable', `event bus ${this.channel} not ready in ${timeoutMs} ms`);
  }

  /** Stops receiving (the connection stays open; close it separately). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    await this.#unsubscribe?.();
  }

  #send(envelope: Envelope, count: boolean): void {
    const { client } = clientsOf(this.#connection);
    if (this.#closed || !client.isReady) {
      if (count) this.stats.dropped += 1;
      return;
    }
    if (count) this.stats.published += 1;
    client.publish(this.channel, JSON.stringify(envelope)).catch((error: unknown) => {
      if (count) this.stats.dropped += 1;
      this.#connection.logger.debug('event bus publish failed', {
        channel: this.channel,
        error: String(error),
      });
    });
  }

  #malformed(reason: string): void {
    this.stats.malformed += 1;
    this.#connection.dropMalformed(this.channel, reason);
  }

  #receive(raw: string): void {
    let envelope: Partial<Envelope>;
    try {
      envelope = JSON.parse(raw) as Partial<Envelope>;
    } catch {
      this.#malformed('not JSON');
      return;
    }
    if (!isJsonObject(envelope) || typeof envelope.o !== 'string') {
      this.#malformed('not a bus envelope (no member id)');
      return;
    }
    if (envelope.o === this.memberId) {
      if (typeof envelope.p === 'string') this.#probes.get(envelope.p)?.();
      return;
    }
    if (envelope.p !== undefined) return; // another member's probe
    if (!isBusEvent(envelope.e)) {
      this.#malformed('not a bus event');
      return;
    }
    this.stats.received += 1;
    const event = envelope.e;
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#connection.logger.error('event bus listener failed', { error: String(error) });
      }
    }
  }
}
