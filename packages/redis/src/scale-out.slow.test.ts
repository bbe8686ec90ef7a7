/**
 * Two replicas as real processes on one real Redis, nginx in front: what a client started on one
 * replica finishes on another (listen streams, tasks, cancel, MRTR rounds), and legacy sessions
 * routed sticky by their id prefix, driven by the official SDK client through nginx.
 */
import { clusterBinariesAvailable, type Nginx, type RedisServer } from '@agentd/cluster-harness';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { type ReplicaFleet, startReplicaFleet } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { until } from './test-support/capture-writer.js';
import { type Replica, startReplica } from './test-support/replicas.js';
import { legacySession, modern, TASKS_CAPS, textOf } from './test-support/wire.js';

const have = clusterBinariesAvailable('@agentd/redis scale-out', ['redis-server', 'nginx']);

let redis: RedisServer;
let a: Replica;
let b: Replica;
let nginx: Nginx;

let fleet: ReplicaFleet<Replica> | undefined;

beforeAll(async () => {
  if (!have) return;
  fleet = await startReplicaFleet({
    ids: ['r0', 'r1'],
    start: (id, redisUrl) => startReplica(redisUrl, id === 'r0' ? 'A' : 'B', { sessionPrefix: `${id}-` }),
    hostOf: (replica) => `127.0.0.1:${replica.port}`,
  });
  ({ redis, nginx } = fleet);
  [a, b] = fleet.replicas as [Replica, Replica];
}, 60_000);

afterAll(async () => {
  await fleet?.close();
});

/** Opens a modern listen stream and collects its SSE text until `stop()`. */
async function listen(url: string, uri: string) {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: {
        _meta: { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {} },
        notifications: { resourceSubscriptions: [uri] },
      },
    }),
  });
  const stream = { text: '' };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) return;
      stream.text += decoder.decode(chunk.value);
    }
  })();
  return { stream, stop: () => controller.abort() };
}

describe.runIf(have)('two replicas, one Redis', () => {
  it('a listen stream held by B receives an update raised through A', async () => {
    const { stream, stop } = await listen(b.url, 'test://shared/doc');
    try {
      await until(() => stream.text.includes('notifications/subscriptions/acknowledged'), 'the listen ack');
      expect(
        textOf(await modern(a.url, 'tools/call', { name: 'touch', arguments: { uri: 'test://shared/doc' } })),
      ).toBe('touched test://shared/doc on A');
      await until(() => stream.text.includes('notifications/resources/updated'), 'the update on B');
      expect(stream.text.split('notifications/resources/updated')).toHaveLength(2); // once
    } finally {
      stop();
    }
  });

  it('a 2026-07-28 task created through A completes and is read through B', async () => {
    const created = await modern(a.url, 'tools/call', { name: 'wait', arguments: { ms: 300 } }, TASKS_CAPS);
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result?.taskId as string;
    const seen = await modern(b.url, 'tasks/get', { taskId }, TASKS_CAPS);
    expect(seen.result).toMatchObject({ taskId, status: 'working' });
    const done = await vi.waitFor(
      async () => {
        const got = await modern(b.url, 'tasks/get', { taskId }, TASKS_CAPS);
        expect(got.result?.status, 'the task completed (seen on B)').toBe('completed');
        return got;
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(done.result?.result).toMatchObject({ content: [{ type: 'text', text: 'waited 300 on A' }] });
  });

  it('2025-11-25 tasks/result on B blocks until the task created on A finishes', async () => {
    const [onA, onB] = await Promise.all([legacySession(a.url), legacySession(b.url)]);
    const created = await onA.request('tools/call', {
      name: 'wait',
      arguments: { ms: 400 },
      task: { ttl: 60_000 },
    });
    const taskId = (created.result as { task: { taskId: string } }).task.taskId;
    const answer = await onB.request('tasks/result', { taskId });
    expect(textOf(answer)).toBe('waited 400 on A');
  });

  it('a cancel sent through B stops the work running on A', async () => {
    const before = Number(textOf(await modern(a.url, 'tools/call', { name: 'aborted', arguments: {} })));
    const created = await modern(
      a.url,
      'tools/call',
      { name: 'wait', arguments: { ms: 60_000 } },
      TASKS_CAPS,
    );
    const taskId = created.result?.taskId as string;
    expect(await modern(b.url, 'tasks/cancel', { taskId }, TASKS_CAPS)).toMatchObject({ result: {} });
    expect((await modern(a.url, 'tasks/get', { taskId }, TASKS_CAPS)).result).toMatchObject({
      status: 'cancelled',
    });
    await vi.waitFor(
      async () => {
        const aborted = Number(textOf(await modern(a.url, 'tools/call', { name: 'aborted', arguments: {} })));
        expect(aborted, 'the handler on A aborted once').toBe(before + 1);
      },
      { timeout: 15_000, interval: 20 },
    );
  });

  it('a task running on A gets the input answered through B', async () => {
    const caps = { ...TASKS_CAPS, elicitation: { form: {} } };
    const created = await modern(a.url, 'tools/call', { name: 'ask-task', arguments: {} }, caps);
    const taskId = created.result?.taskId as string;
    const poll = (status: string) =>
      vi.waitFor(
        async () => {
          const got = await modern(b.url, 'tasks/get', { taskId }, caps);
          expect(got.result?.status, `the task ${status} (seen on B)`).toBe(status);
          return got;
        },
        { timeout: 15_000, interval: 20 },
      );
    const asking = await poll('input_required');
    expect(Object.keys(asking.result?.inputRequests as object)).toEqual(['name']);
    const bad = await modern(
      b.url,
      'tasks/update',
      { taskId, inputResponses: { name: { action: 'maybe' } } },
      caps,
    );
    expect(bad.error?.code).toBe(-32602);
    const sent = await modern(
      b.url,
      'tasks/update',
      { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Grace' } } } },
      caps,
    );
    expect(sent).toMatchObject({ result: {} });
    const done = await poll('completed');
    expect(done.result?.result).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Grace (task on A)' }],
    });
  });

  it('an input_required round started on A completes on B (one requestState key)', async () => {
    const caps = { elicitation: { form: {} } };
    const first = await modern(a.url, 'tools/call', { name: 'ask', arguments: {} }, caps);
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const requestState = first.result?.requestState;
    expect(typeof requestState).toBe('string');
    const second = await modern(
      b.url,
      'tools/call',
      {
        name: 'ask',
        arguments: {},
        requestState,
        inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      },
      caps,
    );
    expect(textOf(second)).toBe('Hello, Ada (from B)');
  });

  it('Redis restarted mid-stream: the listen stream on B stays open, task calls fail fast meanwhile, updates resume', async () => {
    const { stream, stop } = await listen(b.url, 'test://shared/doc');
    const count = () => stream.text.split('notifications/resources/updated').length - 1;
    const touch = () =>
      modern(a.url, 'tools/call', { name: 'touch', arguments: { uri: 'test://shared/doc' } });
    try {
      await until(() => stream.text.includes('notifications/subscriptions/acknowledged'), 'the listen ack');
      await touch();
      await until(() => count() === 1, 'the update before the restart');

      await redis.stop();
      // Raised during the outage: A answers, its own writers get it, B's stream does not.
      expect(textOf(await touch())).toBe('touched test://shared/doc on A');
      const during = await modern(b.url, 'tasks/get', { taskId: 'f'.repeat(32) }, TASKS_CAPS);
      expect(during.error?.code).toBe(-32603);

      await redis.start();
      // The replicas re-subscribe on their own; keep raising until one gets through.
      await vi.waitFor(
        async () => {
          await touch();
          expect(count(), 'an update after the restart').toBeGreaterThanOrEqual(2);
        },
        { timeout: 15_000, interval: 50 },
      );
      expect(stream.text).not.toContain('"resultType"'); // the stream never ended
    } finally {
      stop();
    }
  });

  it('the official SDK client through nginx: sticky sessions, updates from the other replica, re-initialize after a replica dies', async () => {
    const endpoint = new URL(`${nginx.url}/mcp`);
    const connect = async () => {
      const client = new Client({ name: 'scale-out-sdk', version: '1.0.0' });
      client.onerror = () => {};
      const transport = new StreamableHTTPClientTransport(endpoint);
      await client.connect(transport);
      return { client, transport };
    };
    const whoami = async (client: Client) => {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      return (result.content as { text: string }[])[0]?.text;
    };
    const first = await connect();
    const session = first.transport.sessionId ?? '';
    const home = session.startsWith('r0-') ? a : b;
    const other = home === a ? b : a;
    expect(session).toMatch(/^r[01]-[0-9a-f]{32}$/);
    for (let i = 0; i < 4; i++) expect(await whoami(first.client)).toBe(home.name);

    const updates: string[] = [];
    first.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    await first.client.subscribeResource({ uri: 'test://shared/doc' });
    await modern(other.url, 'tools/call', { name: 'touch', arguments: { uri: 'test://shared/doc' } });
    await until(
      () => updates.length === 1,
      'the SDK client receiving the update raised on the other replica',
    );
    expect(updates).toEqual(['test://shared/doc']);

    await home.stop('SIGKILL');
    // nginx sends the session to the backup, which does not know it: 404, and the client starts over.
    await expect(first.client.callTool({ name: 'whoami', arguments: {} })).rejects.toMatchObject({
      code: 404,
    });
    await first.client.close().catch(() => undefined);
    const second = await connect();
    expect(await whoami(second.client)).toBe(other.name);
    expect(second.transport.sessionId?.startsWith(other === a ? 'r0-' : 'r1-')).toBe(true);
    await second.client.close();
  });
});
