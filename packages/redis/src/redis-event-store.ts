/**
 * transport-http's EventStore on Redis: legacy SSE streams (SEP-1699) recorded where every
 * replica reads them, so a client's GET + `Last-Event-ID` can land on any replica behind the
 * balancer, replay what it missed and follow the stream live. One Redis Stream per SSE stream
 * (entry id `0-<seq+1>`, trimmed to `maxEventsPerStream`), its owner beside it, both expiring
 * `ttlMs` after the last event; each append is announced on one channel, which wakes the readers
 * waiting on that stream (with a slow poll behind it for announcements lost in an outage).
 */
import type { JsonRpcMessage } from '@agentd/rpc-frame';
import { isJsonObject } from '@agentd/rpc-frame';
import type { EventStore, StoredEvent, StreamOwner } from '@agentd/transport-http';
import { redisError } from './local-errors.js';
import { LuaScript } from './lua-script.js';
import { clientsOf, type RedisClient } from './raw-client.js';
import type { RedisConnection } from './redis-connection.js';

export interface RedisEventStoreOptions {
  /** Key and channel prefix of this store. Default `<connection prefix>sse:`. */
  prefix?: string;
  /** Most events kept per stream; a resume from before the oldest kept one is refused. Default 1 000. */
  maxEventsPerStream?: number;
  /** A stream with no new event for this long expires. Default 10 min. */
  ttlMs?: number;
  /** A waiting reader re-reads at least this often, whatever it heard. Default 2 000 ms. */
  pollMs?: number;
}

/** KEYS: stream, owner. ARGV: entry id, message JSON ('' for none), max length, ttl ms, channel, stream id. */
const APPEND = new LuaScript(`
if ARGV[2] == '' then
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], ARGV[1], 'e', '')
else
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], ARGV[1], 'm', ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
`);

const READ_BATCH = 256;

type Entry = [id: string, fields: string[]];

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value > 0))
    throw redisError('invalid_option', `${name} must be a positive integer`);
  return value;
}

function isOwner(value: unknown): value is StreamOwner {
  return (
    isJsonObject(value) &&
    typeof value.sessionId === 'string' &&
    (value.principal === undefined || typeof value.principal === 'string') &&
    (value.kind === 'request' || value.kind === 'standalone')
  );
}

export class RedisEventStore implements EventStore {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #maxEvents: number;
  readonly #ttlMs: number;
  readonly #pollMs: number;
  readonly #waiters = new Map<string, Set<() => void>>();
  #unsubscribe: (() => Promise<void>) | undefined;
  #closed = false;

  private constructor(connection: RedisConnection, options: RedisEventStoreOptions) {
    this.#client = clientsOf(connection).client;
    this.#prefix = options.prefix ?? `${connection.prefix}sse:`;
    this.#maxEvents = positiveInteger('maxEventsPerStream', options.maxEventsPerStream, 1_000);
    this.#ttlMs = positiveInteger('ttlMs', options.ttlMs, 10 * 60_000);
    this.#pollMs = positiveInteger('pollMs', options.pollMs, 2_000);
  }

  /** A store on `connection`, subscribed to its append channel before it resolves. */
  static async create(
    connection: RedisConnection,
    options: RedisEventStoreOptions = {},
  ): Promise<RedisEventStore> {
    const store = new RedisEventStore(connection, options);
    store.#unsubscribe = await connection.subscribe(store.#channel, (streamId) => store.#wake(streamId));
    return store;
  }

  get #channel(): string {
    return `${this.#prefix}appended`;
  }

  #streamKey(streamId: string): string {
    return `${this.#prefix}${streamId}`;
  }

  #ownerKey(streamId: string): string {
    return `${this.#prefix}${streamId}:owner`;
  }

  async createStream(streamId: string, owner: StreamOwner): Promise<void> {
    const record: StreamOwner = { sessionId: owner.sessionId, principal: owner.principal, kind: owner.kind };
    await this.#client.sendCommand([
      'SET',
      this.#ownerKey(streamId),
      JSON.stringify(record),
      'PX',
      String(this.#ttlMs),
    ]);
  }

  async append(streamId: string, event: StoredEvent): Promise<void> {
    await APPEND.run(
      this.#client,
      [this.#streamKey(streamId), this.#ownerKey(streamId)],
      [
        `0-${event.seq + 1}`,
        event.message === undefined ? '' : JSON.stringify(event.message),
        String(this.#maxEvents),
        String(this.#ttlMs),
        this.#channel,
        streamId,
      ],
    );
  }

  async owner(streamId: string): Promise<StreamOwner | undefined> {
    const raw = await this.#client.sendCommand(['GET', this.#ownerKey(streamId)]);
    if (typeof raw !== 'string') return undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      return isOwner(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  async read(
    streamId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): Promise<readonly StoredEvent[] | 'gone'> {
    for (;;) {
      // Registered before the read, so an append between the read and the wait is not missed.
      const woken = this.#waitFor(streamId, signal);
      try {
        const entries = (await this.#client.sendCommand([
          'XRANGE',
          this.#streamKey(streamId),
          `(0-${afterSeq + 1}`,
          '+',
          'COUNT',
          String(READ_BATCH),
        ])) as Entry[] | null;
        if (entries !== null && entries.length > 0) {
          const events = entries.map(toEvent);
          // The next event after `afterSeq` was trimmed away: a gap the reader must not hide.
          return (events[0] as StoredEvent).seq > afterSeq + 1 ? 'gone' : events;
        }
        const exists = await this.#client.sendCommand(['EXISTS', this.#ownerKey(streamId)]);
        if (Number(exists) !== 1) return 'gone';
        if (signal.aborted || this.#closed) return [];
        await woken.promise;
        if (signal.aborted || this.#closed) return [];
      } finally {
        woken.cancel();
      }
    }
  }

  async delete(streamId: string): Promise<void> {
    await this.#client.sendCommand(['DEL', this.#streamKey(streamId), this.#ownerKey(streamId)]);
  }

  /** Stops listening for appends; waiting readers return (the connection stays open). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiters of this.#waiters.values()) for (const wake of [...waiters]) wake();
    this.#waiters.clear();
    await this.#unsubscribe?.();
  }

  #waitFor(streamId: string, signal: AbortSignal): { promise: Promise<void>; cancel(): void } {
    let waiters = this.#waiters.get(streamId);
    if (waiters === undefined) {
      waiters = new Set();
      this.#waiters.set(streamId, waiters);
    }
    const set = waiters;
    let wake: () => void = () => {};
    const promise = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const timer = setTimeout(wake, this.#pollMs);
    const cancel = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      set.delete(wake);
      if (set.size === 0 && this.#waiters.get(streamId) === set) this.#waiters.delete(streamId);
    };
    set.add(wake);
    signal.addEventListener('abort', wake, { once: true });
    return { promise, cancel };
  }

  #wake(streamId: string): void {
    const waiters = this.#waiters.get(streamId);
    if (waiters === undefined) return;
    for (const wake of [...waiters]) wake();
  }
}

function toEvent([id, fields]: Entry): StoredEvent {
  const seq = Number(id.slice(id.indexOf('-') + 1)) - 1;
  const index = fields.indexOf('m');
  if (index === -1 || index % 2 !== 0) return { seq };
  return { seq, message: JSON.parse(fields[index + 1] as string) as JsonRpcMessage };
}
