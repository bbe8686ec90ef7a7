/**
 * The bus's delivery semantics, the same table over the in-memory hub and over Redis pub/sub (two
 * connections, as two replicas): an update raised on A reaches B's writers exactly as if raised on
 * B, and A's own writers exactly once.
 */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { MetaKey } from '@agentd/lifecycle';
import { notification } from '@agentd/rpc-frame';
import { type EventBus, ListenStream, MemoryEventHub, SubscriptionRegistry } from '@agentd/subscriptions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { RedisEventBus } from './redis-event-bus.js';
import { captureWriter, until } from './test-support/capture-writer.js';

const MARKER = 'marker://settle';

interface Pair {
  a: SubscriptionRegistry;
  b: SubscriptionRegistry;
  /** Resolves once everything A and B published so far has been applied everywhere. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Settles by sending a marker each way: a member's events arrive in the order it sent them. */
function pairOf(
  busA: EventBus,
  busB: EventBus,
  flush: () => Promise<void>,
  close: () => Promise<void>,
): Pair {
  const a = new SubscriptionRegistry({ bus: busA });
  const b = new SubscriptionRegistry({ bus: busB });
  let seq = 0;
  const marks = (registry: SubscriptionRegistry) => {
    const writer = captureWriter(`marker-${Math.random()}`);
    registry.register('marker', MARKER, writer);
    return writer;
  };
  const atA = marks(a);
  const atB = marks(b);
  return {
    a,
    b,
    async settle() {
      seq += 1;
      const wantA = atA.messages.length + 1;
      const wantB = atB.messages.length + 1;
      // Each marker reaches the other side only (and the origin's own writer once, locally).
      a.notifyUpdatedKeep(MARKER);
      b.notifyUpdatedKeep(MARKER);
      await until(
        () => atA.messages.length >= wantA + 1 && atB.messages.length >= wantB + 1,
        `settle #${seq}`,
      );
      await flush();
    },
    close,
  };
}

type MakePair = () => Promise<Pair>;

const memoryPair: MakePair = async () => {
  const hub = new MemoryEventHub();
  return pairOf(
    hub.member(),
    hub.member(),
    () => new Promise((resolve) => setImmediate(resolve)),
    async () => {},
  );
};

let redis: RedisServer | undefined;
const redisPair: MakePair = async () => {
  const url = (redis as RedisServer).url;
  const [ca, cb] = await Promise.all([RedisConnection.connect({ url }), RedisConnection.connect({ url })]);
  const [busA, busB] = await Promise.all([RedisEventBus.create(ca), RedisEventBus.create(cb)]);
  return pairOf(
    busA,
    busB,
    () => Promise.all([busA.ready(), busB.ready()]).then(() => undefined),
    async () => {
      await Promise.all([busA.close(), busB.close()]);
      await Promise.all([ca.close(), cb.close()]);
    },
  );
};

const haveRedis = clusterBinariesAvailable('@agentd/redis event bus', ['redis-server']);
const cases: [string, MakePair, boolean][] = [
  ['in-memory hub', memoryPair, true],
  ['Redis pub/sub', redisPair, haveRedis],
];

beforeAll(async () => {
  if (haveRedis) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

const updated = (uri: string) => notification('notifications/resources/updated', { uri });

describe.each(cases)('event bus: %s', (_name, makePair, enabled) => {
  it.runIf(enabled)(
    'one-shot resources/updated raised on A consumes B’s subscription, with B’s spelling',
    async () => {
      const pair = await makePair();
      try {
        const w = captureWriter('b1');
        pair.b.register('c1', 'AGENT://run/1/', w);
        pair.a.notifyUpdated('agent://run/1');
        await pair.settle();
        expect(w.messages).toEqual([updated('AGENT://run/1/')]);
        expect(pair.b.has('c1', 'agent://run/1')).toBe(false);
        pair.a.notifyUpdated('agent://run/1');
        await pair.settle();
        expect(w.messages).toHaveLength(1);
      } finally {
        await pair.close();
      }
    },
  );

  it.runIf(enabled)('keep semantics: every update arrives and the subscription stays', async () => {
    const pair = await makePair();
    try {
      const w = captureWriter('b2');
      pair.b.register('c1', 'agent://run/2', w);
      pair.a.notifyUpdatedKeep('agent://run/2');
      pair.a.notifyUpdatedKeep('agent://run/2');
      await pair.settle();
      expect(w.messages).toEqual([updated('agent://run/2'), updated('agent://run/2')]);
      expect(pair.b.has('c1', 'agent://run/2')).toBe(true);
    } finally {
      await pair.close();
    }
  });

  it.runIf(enabled)('the origin delivers once (locally), the other member once', async () => {
    const pair = await makePair();
    try {
      const atA = captureWriter('a3');
      const atB = captureWriter('b3');
      pair.a.register('ca', 'agent://run/3', atA);
      pair.b.register('cb', 'agent://run/3', atB);
      expect(pair.a.notifyUpdatedKeep('agent://run/3')).toBe(1);
      pair.b.notifyUpdatedKeep('agent://run/3');
      await pair.settle();
      expect(atA.messages).toEqual([updated('agent://run/3'), updated('agent://run/3')]);
      expect(atB.messages).toEqual([updated('agent://run/3'), updated('agent://run/3')]);
    } finally {
      await pair.close();
    }
  });

  it.runIf(enabled)('a listen stream on B keeps its uris and gets updates raised on A, tagged', async () => {
    const pair = await makePair();
    try {
      const target = captureWriter('b4');
      const stream = new ListenStream({
        subscriptionId: 7,
        filter: { resourceSubscriptions: ['agent://run/4'], toolsListChanged: true },
        target,
      });
      pair.b.addListen('cb', stream);
      pair.a.notifyUpdated('agent://run/4');
      pair.a.notifyUpdated('agent://run/4');
      pair.a.notifyListChanged('prompts'); // not asked for
      pair.a.notifyListChanged('tools');
      await pair.settle();
      const methods = target.messages.map((m) => ('method' in m ? m.method : ''));
      expect(methods).toEqual([
        'notifications/resources/updated',
        'notifications/resources/updated',
        'notifications/tools/list_changed',
      ]);
      const first = target.messages[0] as unknown as { params: { _meta: Record<string, unknown> } };
      expect(first.params._meta[MetaKey.subscriptionId]).toBe(7);
    } finally {
      await pair.close();
    }
  });

  it.runIf(enabled)('list_changed reaches each distinct writer on B once', async () => {
    const pair = await makePair();
    try {
      const w = captureWriter('b5');
      pair.b.register('c1', 'agent://run/5a', w);
      pair.b.register('c1', 'agent://run/5b', w);
      pair.b.attach('c1', w);
      const other = captureWriter('b5-other');
      pair.b.attach('c2', other);
      pair.a.notifyListChanged('resources');
      await pair.settle();
      const listChanged = notification('notifications/resources/list_changed');
      expect(w.messages).toEqual([listChanged]);
      expect(
        other.messages.filter((m) => 'method' in m && m.method !== 'notifications/resources/updated'),
      ).toEqual([listChanged]);
    } finally {
      await pair.close();
    }
  });

  it.runIf(enabled)(
    'a task status reaches the watching listen stream on B and the creator session on B',
    async () => {
      const pair = await makePair();
      try {
        const target = captureWriter('b6');
        pair.b.addListen(
          'cb',
          new ListenStream({ subscriptionId: 's', filter: { taskIds: ['t-1'] }, target }),
        );
        const creator = captureWriter('b6-session');
        pair.b.attach('session-on-b', creator);
        const bystander = captureWriter('b6-bystander');
        pair.b.attach('someone-else', bystander);
        // A 2026-07-28 task: its listen stream, wherever it is held.
        pair.a.notifyTask('t-1', notification('notifications/tasks', { taskId: 't-1', status: 'completed' }));
        // A 2025-11-25 task: the session that created it, wherever it lives.
        const legacy = notification('notifications/tasks/status', { taskId: 't-2', status: 'completed' });
        pair.a.notifyTask('t-2', legacy, 'session-on-b');
        await pair.settle();
        expect(target.messages).toHaveLength(1);
        expect(creator.messages).toEqual([legacy]);
        expect(bystander.messages).toEqual([]);
      } finally {
        await pair.close();
      }
    },
  );
});
