/**
 * Legacy SSE resumability (SEP-1699) across two replicas on one Redis event store, nginx in front
 * with sticky sessions: a stream one replica closed is resumed on the other (which does not hold
 * the session), replayed and followed live; and the official SDK client, whose home replica died
 * after answering while the client was away, gets the answer from the backup through nginx.
 */
import { clusterBinariesAvailable, type Nginx, type RedisServer } from '@agentd/cluster-harness';
import { type ReplicaFleet, startReplicaFleet } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { until } from './test-support/capture-writer.js';
import { type Replica, startReplica } from './test-support/replicas.js';
import { modern, textOf } from './test-support/wire.js';

const have = clusterBinariesAvailable('@agentd/redis resumable SSE', ['redis-server', 'nginx']);
// Long enough that the test acts (kills a replica) before the SDK client reconnects.
const RETRY_MS = 3_000;

let redis: RedisServer;
let a: Replica;
let b: Replica;
let nginx: Nginx;

let fleet: ReplicaFleet<Replica> | undefined;

beforeAll(async () => {
  if (!have) return;
  fleet = await startReplicaFleet({
    ids: ['r0', 'r1'],
    start: (id, redisUrl) =>
      startReplica(redisUrl, id === 'r0' ? 'A' : 'B', { sessionPrefix: `${id}-`, retryMs: RETRY_MS }),
    hostOf: (replica) => `127.0.0.1:${replica.port}`,
  });
  ({ redis, nginx } = fleet);
  [a, b] = fleet.replicas as [Replica, Replica];
}, 60_000);

afterAll(async () => {
  await fleet?.close();
});

const LEGACY = '2025-11-25';

/** A raw legacy session opened through nginx. */
async function session(url: string) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const id = init.headers.get('mcp-session-id') as string;
  await init.text();
  headers['mcp-session-id'] = id;
  headers['mcp-protocol-version'] = LEGACY;
  await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return { id, headers };
}

function resume(url: string, sessionId: string, lastEventId: string): Promise<Response> {
  return fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': LEGACY,
      'last-event-id': lastEventId,
    },
  });
}

/** The id and data of each event of an SSE text (comments and bare `retry:` skipped). */
function events(text: string): { id?: string; data: string }[] {
  const found: { id?: string; data: string }[] = [];
  for (const block of text.split('\n\n')) {
    const data = block.split('\n').find((line) => line.startsWith('data: '));
    if (data === undefined) continue;
    const id = block
      .split('\n')
      .find((line) => line.startsWith('id: '))
      ?.slice(4);
    found.push({ ...(id === undefined ? {} : { id }), data: data.slice(6) });
  }
  return found;
}

describe.runIf(have)('resumable SSE on two replicas, one Redis event store', () => {
  it('a stream closed by its home replica is resumed on the other one: replayed, then followed live', async () => {
    const s = await session(`${nginx.url}/mcp`);
    const home = s.id.startsWith('r0-') ? a : b;
    const other = home === a ? b : a;
    const post = await fetch(`${nginx.url}/mcp`, {
      method: 'POST',
      headers: s.headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'poll', arguments: { key: 'live' }, _meta: { progressToken: 'live' } },
      }),
    });
    const closed = events(await post.text());
    // Priming (id, empty data), then the progress the tool sent; the result did not come on it.
    expect(closed[0]?.data).toBe('');
    expect(closed.map((e) => e.data).join()).not.toContain('"result"');
    const primingId = closed[0]?.id as string;

    // The other replica does not hold the session, yet serves its stream from Redis.
    const resumed = await resume(other.url, s.id, primingId);
    expect(resumed.status).toBe(200);
    const reader = (resumed.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const read = (async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += new TextDecoder().decode(chunk.value);
      }
    })();
    await until(() => text.includes(`closed on ${home.name}`), 'the replayed progress', 15_000);
    expect(text).not.toContain('"result"');
    // Released on the home replica: the rest arrives live on the other replica's GET, which then ends.
    expect(
      textOf(await modern(home.url, 'tools/call', { name: 'release', arguments: { key: 'live' } })),
    ).toBe('released live');
    await read;
    const replayed = events(text);
    expect(
      replayed.map(
        (e) => JSON.parse(e.data).params?.message ?? JSON.parse(e.data).result?.content?.[0]?.text,
      ),
    ).toEqual([`closed on ${home.name}`, `finishing on ${home.name}`, `polled live on ${home.name}`]);
    const streamId = primingId.split(':')[0];
    expect(replayed.every((e) => e.id?.startsWith(`${streamId}:`))).toBe(true);

    // Another session's id cannot read it, on either replica.
    const stranger = await session(`${nginx.url}/mcp`);
    expect((await resume(other.url, stranger.id, primingId)).status).toBeGreaterThanOrEqual(400);
    expect((await resume(`${nginx.url}/mcp`, stranger.id, primingId)).status).toBeGreaterThanOrEqual(400);
  });

  it('the official SDK client through nginx: its home replica dies after answering while the client was away, the backup replays the answer', async () => {
    const connection = await RedisConnection.connect({ url: redis.url });
    const client = new Client({ name: 'resume-scale-out', version: '1.0.0' });
    client.onerror = () => {};
    const transport = new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`));
    try {
      await client.connect(transport);
      const home = transport.sessionId?.startsWith('r0-') ? a : b;
      const tokens: string[] = [];
      const messages: string[] = [];
      const call = client.callTool({ name: 'poll', arguments: { key: 'sdk', ms: 50 } }, undefined, {
        onresumptiontoken: (token) => tokens.push(token),
        onprogress: (progress) => messages.push(progress.message ?? ''),
        timeout: 60_000,
      });
      await until(() => tokens.length > 0, 'the priming event id', 15_000);
      const key = `mcp:sse:${tokens[0]?.split(':')[0]}`;
      // Priming, two progress notifications and the response: all recorded in Redis.
      await vi.waitFor(
        async () =>
          expect(
            Number(await connection.command(['XLEN', key])),
            'the call recorded in Redis',
          ).toBeGreaterThanOrEqual(4),
        { timeout: 15_000, interval: 20 },
      );
      await home.stop('SIGKILL');
      // After `retry:` the client GETs with Last-Event-ID; nginx sends it to the backup.
      const result = await call;
      expect(result.content).toEqual([{ type: 'text', text: `polled sdk on ${home.name}` }]);
      // The progress sent after the close came with the replay, from the replica that did not send it.
      expect(messages).toEqual([`closed on ${home.name}`, `finishing on ${home.name}`]);
    } finally {
      await client.close().catch(() => undefined);
      await connection.close();
    }
  }, 60_000);
});
