/**
 * The EventStore contract, the same cases over transport-http's in-memory store and over Redis
 * (writer and reader on two connections, as two replicas): owners, replay after a position, a
 * waiting read woken by the other side's append, trimming reported as a gap, expiry.
 */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { type EventStore, MemoryEventStore } from '@agentd/transport-http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { RedisEventStore } from './redis-event-store.js';

const have = clusterBinariesAvailable('@agentd/redis event store', ['redis-server']);

interface Pair {
  /** The replica that writes the stream. */
  writer: EventStore;
  /** Another replica reading it. */
  reader: EventStore;
}

interface Setup {
  make(options: { maxEventsPerStream?: number; ttlMs?: number }): Promise<Pair>;
  close(): Promise<void>;
}

const OWNER = { sessionId: 'session-1', principal: 'alice', kind: 'request' } as const;
const note = (n: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params: { progress: n },
});
const never = () => new AbortController().signal;
const NOW = AbortSignal.abort();

let counter = 0;
const streamId = () => `stream${Date.now().toString(36)}${(counter++).toString(36)}`;

function contract(name: string, setup: () => Promise<Setup>) {
  describe.runIf(name === 'memory' || have)(`EventStore contract: ${name}`, () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setup();
    }, 30_000);
    afterAll(() => s?.close());

    it('records an owner and replays the events after a position, in order', async () => {
      const { writer, reader } = await s.make({});
      const id = streamId();
      await writer.createStream(id, OWNER);
      await writer.append(id, { seq: 0 });
      for (let n = 1; n <= 3; n++) await writer.append(id, { seq: n, message: note(n) });
      expect(await reader.owner(id)).toEqual(OWNER);
      expect(await reader.owner('unknownstream')).toBeUndefined();
      expect(await reader.read(id, 1, NOW)).toEqual([
        { seq: 2, message: note(2) },
        { seq: 3, message: note(3) },
      ]);
      expect(await reader.read(id, -1, NOW)).toHaveLength(4);
      expect(await reader.read(id, 3, NOW)).toEqual([]);
      expect(await reader.read('unknownstream', 0, NOW)).toBe('gone');
    });

    it("a waiting read wakes on the other side's append, and returns [] on abort", async () => {
      const { writer, reader } = await s.make({});
      const id = streamId();
      await writer.createStream(id, { ...OWNER, principal: undefined, kind: 'standalone' });
      await writer.append(id, { seq: 0 });
      const waiting = reader.read(id, 0, never());
      // sleep-is-the-point: the read must be parked before the append (no store says it is).
      await new Promise((resolve) => setTimeout(resolve, 100));
      await writer.append(id, { seq: 1, message: note(1) });
      expect(await waiting).toEqual([{ seq: 1, message: note(1) }]);
      expect(await reader.owner(id)).toEqual({
        sessionId: 'session-1',
        principal: undefined,
        kind: 'standalone',
      });

      const stop = new AbortController();
      const aborted = reader.read(id, 1, stop.signal);
      setTimeout(() => stop.abort(), 50);
      expect(await aborted).toEqual([]);
    });

    it('a read from before the oldest kept event is a gap (gone); a later one still works', async () => {
      const { writer, reader } = await s.make({ maxEventsPerStream: 3 });
      const id = streamId();
      await writer.createStream(id, OWNER);
      await writer.append(id, { seq: 0 });
      for (let n = 1; n <= 5; n++) await writer.append(id, { seq: n, message: note(n) });
      expect(await reader.read(id, 0, NOW)).toBe('gone');
      expect(await reader.read(id, 1, NOW)).toBe('gone');
      expect((await reader.read(id, 2, NOW)) as unknown[]).toHaveLength(3);
    });

    it('a deleted stream is gone', async () => {
      const { writer, reader } = await s.make({});
      const id = streamId();
      await writer.createStream(id, OWNER);
      await writer.append(id, { seq: 0 });
      await writer.delete(id);
      expect(await reader.owner(id)).toBeUndefined();
      expect(await reader.read(id, 0, NOW)).toBe('gone');
    });

    it('a stream with no new event for ttlMs expires', async () => {
      const { writer, reader } = await s.make({ ttlMs: 200 });
      const id = streamId();
      await writer.createStream(id, OWNER);
      await writer.append(id, { seq: 0 });
      expect(await reader.owner(id)).toEqual(OWNER);
      await vi.waitFor(async () => expect(await reader.owner(id), 'the stream expired').toBeUndefined(), {
        timeout: 10_000,
        interval: 50,
      });
      expect(await reader.read(id, 0, NOW)).toBe('gone');
    });
  });
}

contract('memory', async () => ({
  async make(options) {
    // One process: the writer and the reader are the same store.
    const store = new MemoryEventStore(options);
    return { writer: store, reader: store };
  },
  async close() {},
}));

contract('redis', async () => {
  const redis: RedisServer = await startRedisServer();
  const connections: RedisConnection[] = [];
  const stores: RedisEventStore[] = [];
  let n = 0;
  return {
    async make(options) {
      const prefix = `t${n++}:`;
      const [a, b] = await Promise.all([
        RedisConnection.connect({ url: redis.url, prefix }),
        RedisConnection.connect({ url: redis.url, prefix }),
      ]);
      connections.push(a, b);
      const [writer, reader] = await Promise.all([
        RedisEventStore.create(a, options),
        RedisEventStore.create(b, options),
      ]);
      stores.push(writer, reader);
      return { writer, reader };
    },
    async close() {
      await Promise.all(stores.map((store) => store.close()));
      await Promise.all(connections.map((connection) => connection.close()));
      await redis.close();
    },
  };
});

describe.runIf(have)('RedisEventStore options', () => {
  it('rejects a non-positive bound', async () => {
    const redis = await startRedisServer();
    const connection = await RedisConnection.connect({ url: redis.url });
    try {
      await expect(RedisEventStore.create(connection, { maxEventsPerStream: 0 })).rejects.toMatchObject({
        code: 'invalid_option',
      });
    } finally {
      await connection.close();
      await redis.close();
    }
  });
});
