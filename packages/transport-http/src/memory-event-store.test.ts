/** MemoryEventStore's bounds (the shared EventStore contract runs in @agentd/redis over both stores). */
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from './memory-event-store.js';

const OWNER = { sessionId: 's', principal: undefined, kind: 'request' } as const;
const NOW = AbortSignal.abort();
const big = (n: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/message',
  params: { data: 'x'.repeat(n) },
});

describe('MemoryEventStore bounds', () => {
  it('past maxStreams the least recently active stream goes', async () => {
    const store = new MemoryEventStore({ maxStreams: 2 });
    await store.createStream('aaaaaaaa', OWNER);
    await store.createStream('bbbbbbbb', OWNER);
    await store.append('aaaaaaaa', { seq: 0 }); // a is now the most recent
    await store.createStream('cccccccc', OWNER);
    expect(store.size).toBe(2);
    expect(await store.owner('bbbbbbbb')).toBeUndefined();
    expect(await store.owner('aaaaaaaa')).toEqual(OWNER);
  });

  it('past maxBytes older streams go first, then a stream too big alone loses its oldest events', async () => {
    const store = new MemoryEventStore({ maxBytes: 10_000 });
    await store.createStream('aaaaaaaa', OWNER);
    await store.append('aaaaaaaa', { seq: 0, message: big(6_000) });
    await store.createStream('bbbbbbbb', OWNER);
    await store.append('bbbbbbbb', { seq: 0, message: big(6_000) });
    expect(await store.owner('aaaaaaaa')).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    await store.append('bbbbbbbb', { seq: 1, message: big(6_000) });
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    expect(await store.read('bbbbbbbb', -1, NOW)).toBe('gone');
    expect(await store.read('bbbbbbbb', 0, NOW)).toHaveLength(1);
  });

  it('rejects a bound that is not a positive integer', () => {
    expect(() => new MemoryEventStore({ maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => new MemoryEventStore({ ttlMs: 1.5 })).toThrow(/ttlMs/);
  });
});
