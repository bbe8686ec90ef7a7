/** Task status notifications through the subscription machinery: listen `taskIds` (2026-07-28) and the 2025-11-25 session. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { SocketHarness } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, TASKS, taskDispatcher, until } from './test-support/task-tools.js';

let harness: SocketHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('task status notifications', () => {
  it('a listen stream watching its own task gets notifications/tasks; foreign ids are dropped; no extension is -32021', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peer = await harness.connect('management');
    const other = await harness.connect('stdio');
    const mine = (
      (await peer.modern('tools/call', { name: 'gated', arguments: {} }, 'c1', TASKS)).result as JsonObject
    ).taskId as string;
    const theirs = (
      (await other.modern('tools/call', { name: 'gated', arguments: {} }, 'c2', TASKS)).result as JsonObject
    ).taskId as string;
    const refused = await peer.modern(
      'subscriptions/listen',
      { notifications: { taskIds: [mine] } },
      'l0',
      {},
    );
    expect(refused.error).toMatchObject({ code: -32021 });
    peer.send({
      jsonrpc: '2.0',
      id: 'l1',
      method: 'subscriptions/listen',
      params: {
        notifications: { taskIds: [mine, theirs] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': TASKS,
        },
      },
    });
    const ack = await peer.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toMatchObject({
      notifications: { taskIds: [mine] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'l1' },
    });
    gate.open('watched');
    const done = await peer.waitFor(
      (m) => m.method === 'notifications/tasks' && m.params?.status === 'completed',
    );
    expect(done.params).toMatchObject({
      taskId: mine,
      status: 'completed',
      result: { content: [{ text: 'gated: watched' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'l1' },
    });
    let n = 0;
    await until(
      async () =>
        (await other.modern('tasks/get', { taskId: theirs }, `g${++n}`, TASKS)).result as JsonObject,
      (t) => t.status === 'completed',
    );
    expect(
      peer.messages.filter((m) => m.method === 'notifications/tasks' && m.params?.taskId === theirs),
    ).toEqual([]);
  });

  it('a 2025-11-25 session gets notifications/tasks/status for the tasks it created, and only those', async () => {
    const { dispatcher, gate } = taskDispatcher();
    harness = await serve(dispatcher);
    const peers = [await harness.connect('management'), await harness.connect('management')];
    for (const [i, peer] of peers.entries()) {
      await peer.request(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        `i${i}`,
      );
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    const [creator, bystander] = peers as [(typeof peers)[0], (typeof peers)[0]];
    const created = await creator.request('tools/call', { name: 'gated', arguments: {}, task: {} }, 'c');
    const taskId = ((created.result as JsonObject).task as JsonObject).taskId as string;
    gate.open('legacy');
    const status = await creator.waitFor(
      (m) => m.method === 'notifications/tasks/status' && m.params?.status === 'completed',
    );
    expect(status.params).toMatchObject({ taskId, status: 'completed', ttl: 3_600_000 });
    expect(status.params).not.toHaveProperty('result');
    expect(bystander.messages.filter((m) => m.method === 'notifications/tasks/status')).toEqual([]);
  });
});
