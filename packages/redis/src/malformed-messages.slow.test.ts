/**
 * A pub/sub message its subscriber cannot use is never dropped unseen: the event bus and the task
 * store's two channels all go through `RedisConnection.dropMalformed`, which counts by channel and
 * logs at warning (once a minute per channel); good messages keep flowing. Without a logger, the
 * default one writes that warning as a JSON line on stderr. Real redis-server.
 */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import type { LogFields, Logger } from '@agentd/rpc-frame';
import { SubscriptionRegistry } from '@agentd/subscriptions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { RedisEventBus } from './redis-event-bus.js';
import { RedisTaskStore } from './redis-task-store.js';
import { captureWriter, until } from './test-support/capture-writer.js';

const haveRedis = clusterBinariesAvailable('@agentd/redis malformed messages', ['redis-server']);
let redis: RedisServer | undefined;
beforeAll(async () => {
  if (haveRedis) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

function capturingLogger(): Logger & { warnings: { message: string; fields: LogFields }[] } {
  const warnings: { message: string; fields: LogFields }[] = [];
  return {
    warnings,
    debug() {},
    info() {},
    warn(message, fields = {}) {
      warnings.push({ message, fields });
    },
    error() {},
  };
}

describe.runIf(haveRedis)('malformed pub/sub messages', () => {
  it('are counted by channel and logged at warning, on the bus and both task store channels', async () => {
    const url = (redis as RedisServer).url;
    const logger = capturingLogger();
    const connection = await RedisConnection.connect({ url, logger, prefix: 'm1:' });
    const other = await RedisConnection.connect({ url, prefix: 'm1:' });
    const bus = await RedisEventBus.create(connection);
    const store = await RedisTaskStore.create(connection);
    const registry = new SubscriptionRegistry({ bus });
    const peer = new SubscriptionRegistry({ bus: await RedisEventBus.create(other) });
    try {
      await bus.ready();
      const writer = captureWriter('w');
      registry.register('w', 'file:///a', writer);
      for (const raw of ['{not json', JSON.stringify({ o: 'x', e: { kind: 'nope' } }), '[]'])
        await other.publish('m1:events', raw);
      await other.publish('m1:tasks:changed', 'no-status-here');
      await other.publish('m1:tasks:input', JSON.stringify({ t: 1 }));
      // A good event after the bad ones still arrives.
      peer.notifyUpdatedKeep('file:///a');
      await until(() => writer.messages.length === 1, 'the good event after the bad ones', 20_000);
      await until(() => (connection.malformed.get('m1:tasks:input') ?? 0) === 1, 'input counted', 20_000);
      expect(Object.fromEntries(connection.malformed)).toEqual({
        'm1:events': 3,
        'm1:tasks:changed': 1,
        'm1:tasks:input': 1,
      });
      expect(bus.stats.malformed).toBe(3);
      // One line per channel: the bus's later two were counted, not logged (rate limit).
      expect(logger.warnings.map((w) => [w.message, w.fields.channel, w.fields.reason])).toEqual([
        ['malformed pub/sub message dropped', 'm1:events', 'not JSON'],
        ['malformed pub/sub message dropped', 'm1:tasks:changed', 'not "<task id> <status>"'],
        ['malformed pub/sub message dropped', 'm1:tasks:input', 'not {t: task id, r: responses}'],
      ]);
    } finally {
      registry.leaveBus();
      peer.leaveBus();
      await store.close();
      await bus.close();
      await connection.close();
      await other.close();
    }
  }, 30_000);

  it('reach stderr through the default logger when the embedder passes none', async () => {
    const url = (redis as RedisServer).url;
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const connection = await RedisConnection.connect({ url, prefix: 'm2:' });
    const other = await RedisConnection.connect({ url, prefix: 'm2:', logger: capturingLogger() });
    const bus = await RedisEventBus.create(connection);
    try {
      await bus.ready();
      await other.publish('m2:events', '{not json');
      await until(
        () => (connection.malformed.get('m2:events') ?? 0) === 1,
        'the bad message counted',
        20_000,
      );
      const lines = stderr.mock.calls.map((call) => JSON.parse(String(call[0])) as LogFields);
      expect(lines.filter((line) => line.msg === 'malformed pub/sub message dropped')).toEqual([
        expect.objectContaining({ level: 'warning', channel: 'm2:events', reason: 'not JSON' }),
      ]);
    } finally {
      await bus.close();
      await connection.close();
      await other.close();
      stderr.mockRestore();
    }
  }, 30_000);
});
