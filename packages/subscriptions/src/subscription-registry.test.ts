/** The registry's seed operations with real writers over real streams, and listen streams as writers. */
import { PassThrough, Writable } from 'node:stream';
import { type JsonRpcMessage, notification } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { ListenStream } from './listen-stream.js';
import { ndjsonWriter } from './ndjson-writer.js';
import type { PushWriter } from './push-writer.js';
import { SubscriptionRegistry } from './subscription-registry.js';

/** A PushWriter over a real PassThrough that keeps the parsed lines it wrote. */
function peer(id: string, options: { maxBufferedBytes?: number } = {}) {
  const stream = new PassThrough();
  const lines: JsonRpcMessage[] = [];
  let buffer = '';
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let at = buffer.indexOf('\n');
    while (at !== -1) {
      lines.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
      at = buffer.indexOf('\n');
    }
  });
  return { writer: ndjsonWriter(stream, { id, ...options }), lines, stream };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SubscriptionRegistry', () => {
  it('register is idempotent per (connection, uri), across spellings', async () => {
    const registry = new SubscriptionRegistry();
    const a = peer('a');
    registry.register('c1', 'agent://run/1', a.writer);
    registry.register('c1', 'agent://run/1', a.writer);
    registry.register('c1', 'AGENT://run/1/', a.writer);
    expect(registry.subscriberCount('agent://run/1')).toBe(1);
    expect(registry.notifyUpdatedKeep('agent://run/1')).toBe(1);
    await tick();
    expect(a.lines).toEqual([notification('notifications/resources/updated', { uri: 'agent://run/1' })]);
  });

  it('a re-register with another writer replaces the old writer', async () => {
    const registry = new SubscriptionRegistry();
    const old = peer('old');
    const fresh = peer('fresh');
    registry.register('c1', 'test://x', old.writer);
    registry.register('c1', 'test://x', fresh.writer);
    expect(registry.notifyUpdated('test://x')).toBe(1);
    await tick();
    expect(old.lines).toEqual([]);
    expect(fresh.lines).toHaveLength(1);
  });

  it('notifyUpdated consumes the entry; notifyUpdatedKeep keeps it', () => {
    const registry = new SubscriptionRegistry();
    const a = peer('a');
    const b = peer('b');
    registry.register('c1', 'test://once', a.writer);
    registry.register('c2', 'test://once', b.writer);
    registry.register('c1', 'test://often', a.writer);
    expect(registry.notifyUpdated('test://once')).toBe(2);
    expect(registry.notifyUpdated('test://once')).toBe(0);
    expect(registry.subscriptionsOf('c1')).toEqual(['test://often']);
    expect(registry.notifyUpdatedKeep('test://often')).toBe(1);
    expect(registry.notifyUpdatedKeep('test://often')).toBe(1);
  });

  it('drop prunes the entry once the last subscriber leaves; removeConnection drops everything', () => {
    const registry = new SubscriptionRegistry();
    const a = peer('a');
    const b = peer('b');
    registry.register('c1', 'test://x', a.writer);
    registry.register('c2', 'test://x', b.writer);
    registry.register('c2', 'test://y', b.writer);
    registry.drop('c1', 'TEST://x');
    expect(registry.subscriberCount('test://x')).toBe(1);
    registry.drop('c1', 'test://never-subscribed');
    registry.removeConnection('c2');
    expect(registry.stats()).toEqual({ uris: 0, subscriptions: 0, channels: 0, listenStreams: 0 });
  });

  it('broadcastDistinct writes once per distinct writer across uris and channels', async () => {
    const registry = new SubscriptionRegistry();
    const a = peer('a');
    const b = peer('b');
    const c = peer('c');
    registry.register('c1', 'test://1', a.writer);
    registry.register('c1', 'test://2', a.writer);
    registry.register('c2', 'test://1', b.writer);
    registry.attach('c2', b.writer);
    registry.attach('c3', c.writer);
    expect(registry.broadcastDistinct(notification('notifications/tools/list_changed'))).toBe(3);
    await tick();
    expect([a.lines.length, b.lines.length, c.lines.length]).toEqual([1, 1, 1]);
    registry.detach('c3');
    expect(registry.broadcastDistinct(notification('notifications/tools/list_changed'))).toBe(2);
  });

  it('a slow writer past its bound is closed and pruned; the others still get every push', async () => {
    const registry = new SubscriptionRegistry();
    const fast = peer('fast');
    const stalled: PushWriter = ndjsonWriter(new Writable({ highWaterMark: 1, write: () => {} }), {
      id: 'slow',
      maxBufferedBytes: 300,
    });
    registry.register('fast', 'test://hot', fast.writer);
    registry.register('slow', 'test://hot', stalled);
    const counts: number[] = [];
    for (let i = 0; i < 10; i += 1) counts.push(registry.notifyUpdatedKeep('test://hot'));
    expect(stalled.closed).toBe(true);
    expect(counts[0]).toBe(2);
    expect(counts.at(-1)).toBe(1);
    expect(registry.subscriberCount('test://hot')).toBe(1);
    await tick();
    expect(fast.lines).toHaveLength(10);
  });
});

describe('listen streams in the registry', () => {
  it('acks, tags with the listen id, filters by kind and uri, and is removed with its connection', async () => {
    const registry = new SubscriptionRegistry();
    const conn = peer('conn');
    const listen = new ListenStream({
      subscriptionId: 5,
      filter: { toolsListChanged: true, resourceSubscriptions: ['test://watched/'] },
      target: conn.writer,
    });
    listen.acknowledge();
    registry.addListen('conn', listen);
    registry.attach('conn', conn.writer); // the same connection also holds a legacy session
    expect(registry.notifyListChanged('prompts')).toBe(1); // the legacy channel only
    expect(registry.notifyListChanged('tools')).toBe(2);
    expect(registry.notifyUpdatedKeep('test://watched')).toBe(1);
    expect(registry.notifyUpdatedKeep('test://other')).toBe(0);
    expect(listen.write(notification('notifications/progress', { progress: 1 }))).toBe(true); // dropped silently
    await tick();
    const onStream = conn.lines.filter((m) => JSON.stringify(m).includes('subscriptionId'));
    expect(onStream.map((m) => ('method' in m ? m.method : ''))).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
      'notifications/resources/updated',
    ]);
    expect(onStream[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched/'] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 5 },
      },
    });
    expect(onStream[2]).toMatchObject({ params: { uri: 'test://watched/' } });
    expect(listen.finalResult()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 5 } },
    });
    registry.removeConnection('conn');
    expect(registry.stats()).toEqual({ uris: 0, subscriptions: 0, channels: 0, listenStreams: 0 });
  });

  it('a one-shot update consumes connection subscriptions but not a listen stream’s uris', () => {
    const registry = new SubscriptionRegistry();
    const conn = peer('conn');
    const legacy = peer('legacy');
    const listen = new ListenStream({
      subscriptionId: 9,
      filter: { resourceSubscriptions: ['test://a'] },
      target: conn.writer,
    });
    registry.addListen('conn', listen);
    registry.register('legacy', 'test://a', legacy.writer);
    expect(registry.notifyUpdated('test://a')).toBe(2);
    expect(registry.notifyUpdated('test://a')).toBe(1); // the open listen stream still hears it
    expect(registry.subscriptionsOf('legacy')).toEqual([]);
    registry.removeListen('conn', listen);
    expect(registry.notifyUpdated('test://a')).toBe(0);
  });

  it('removeListen leaves the connection’s other registrations alone', () => {
    const registry = new SubscriptionRegistry();
    const conn = peer('conn');
    const listen = new ListenStream({
      subscriptionId: 'L',
      filter: { resourceSubscriptions: ['test://a'] },
      target: conn.writer,
    });
    registry.register('conn', 'test://a', conn.writer);
    registry.addListen('conn', listen);
    expect(registry.subscriberCount('test://a')).toBe(2);
    registry.removeListen('conn', listen);
    expect(registry.subscriberCount('test://a')).toBe(1);
  });
});
