/** The Redis bus between two real processes, and across a Redis restart (what the outage loses, what resumes). */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { notification } from '@agentd/rpc-frame';
import { SubscriptionRegistry } from '@agentd/subscriptions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { RedisEventBus } from './redis-event-bus.js';
import { captureWriter, until } from './test-support/capture-writer.js';

const MEMBER = fileURLToPath(new URL('./test-support/bus-member.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const haveRedis = clusterBinariesAvailable('@agentd/redis bus across processes', ['redis-server']);

let redis: RedisServer | undefined;
beforeAll(async () => {
  if (haveRedis) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

const updated = (uri: string) => notification('notifications/resources/updated', { uri });

describe.runIf(haveRedis)('Redis event bus', () => {
  it('carries updates both ways between two processes, once each', async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build @agentd/redis first`);
    const url = (redis as RedisServer).url;
    const connection = await RedisConnection.connect({ url });
    const bus = await RedisEventBus.create(connection);
    const registry = new SubscriptionRegistry({ bus });
    const here = captureWriter('parent-writer');
    registry.register('parent-connection', 'agent://shared', here);
    const child: ChildProcess = spawn(process.execPath, [MEMBER], {
      env: { ...process.env, REDIS_URL: url },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines: Record<string, unknown>[] = [];
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) =>
      lines.push(JSON.parse(line) as Record<string, unknown>),
    );
    try {
      await until(() => lines.some((l) => 'ready' in l), 'the child on the bus', 15_000);
      registry.notifyUpdatedKeep('agent://shared');
      await until(() => lines.some((l) => 'received' in l), 'the child receiving');
      child.stdin?.write('raise agent://shared\n');
      // The parent's own update (local) and then the child's (over Redis).
      await until(() => here.messages.length === 2, 'the parent receiving');
      child.stdin?.write('raise agent://shared\n');
      await until(() => here.messages.length === 3, 'the second update from the child');
      await bus.ready();
      expect(here.messages).toEqual([
        updated('agent://shared'),
        updated('agent://shared'),
        updated('agent://shared'),
      ]);
      // The child's own raises are local there: it printed the parent's update and its two own, once each.
      await until(() => lines.filter((l) => 'received' in l).length === 3, 'the child’s three deliveries');
      expect(bus.stats.received).toBe(2);
    } finally {
      child.stdin?.end('quit\n');
      await new Promise((resolve) => child.once('exit', resolve));
      await bus.close();
      await connection.close();
    }
  });

  it('reconnects after a Redis restart: what was raised during the outage stays local, later updates flow again', async () => {
    const server = redis as RedisServer;
    const [ca, cb] = await Promise.all([
      RedisConnection.connect({ url: server.url, maxReconnectDelayMs: 200 }),
      RedisConnection.connect({ url: server.url, maxReconnectDelayMs: 200 }),
    ]);
    const [busA, busB] = await Promise.all([RedisEventBus.create(ca), RedisEventBus.create(cb)]);
    const a = new SubscriptionRegistry({ bus: busA });
    const b = new SubscriptionRegistry({ bus: busB });
    const atA = captureWriter('a');
    const atB = captureWriter('b');
    a.register('ca', 'agent://run/r', atA);
    b.register('cb', 'agent://run/r', atB);
    try {
      a.notifyUpdatedKeep('agent://run/r');
      await until(() => atB.messages.length === 1, 'the update before the restart');

      await server.stop();
      await until(() => !ca.ready && !cb.ready, 'both clients noticing the outage');
      a.notifyUpdatedKeep('agent://run/r'); // during the outage: A's own writer only
      expect(atA.messages).toHaveLength(2);
      expect(busA.stats.dropped).toBe(1);

      await server.start();
      await Promise.all([busA.ready(), busB.ready()]);
      a.notifyUpdatedKeep('agent://run/r');
      b.notifyUpdatedKeep('agent://run/r');
      await until(() => atB.messages.length === 3 && atA.messages.length === 4, 'updates after the restart');
      await Promise.all([busA.ready(), busB.ready()]);
      // B missed exactly the outage's update; nothing arrived twice.
      expect(atB.messages).toHaveLength(3);
      expect(atA.messages).toHaveLength(4);
    } finally {
      await Promise.all([busA.close(), busB.close()]);
      await Promise.all([ca.close(), cb.close()]);
    }
  });
});
