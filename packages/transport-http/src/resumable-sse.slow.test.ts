/**
 * Legacy SSE resumability (SEP-1699) over real HTTP with the default in-memory event store:
 * priming events with `retry:`, a tool closing its POST stream mid-call, the official SDK client
 * resuming with GET + `Last-Event-ID`, replay of only that stream's events, GET streams resumed
 * with what was pushed while they were down, and no event ids in the 2026-07-28 era.
 */
import { Dispatcher } from '@agentd/dispatch';
import { createServerCore, type ServerCore, silentLogger } from '@agentd/server';
import { SubscriptionRegistry } from '@agentd/subscriptions';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryEventStore } from './memory-event-store.js';
import { type ServeHttpOptions, serveHttp } from './node.js';
import { modernPost } from './test-support/harness.js';

interface Server {
  core: ServerCore;
  url: string;
  /** Exchanges in flight, a GET stream included. */
  activeRequests(): number;
  sessionCount(): number;
  close(): Promise<void>;
}

/** Resolves `release(key)` waits: a tool parks until the test lets it finish. */
const gates = new Map<string, () => void>();
function gate(key: string): Promise<void> {
  return new Promise((resolve) => gates.set(key, resolve));
}
async function release(key: string): Promise<void> {
  await until(() => gates.has(key), `the tool to wait on ${key}`);
  gates.get(key)?.();
  gates.delete(key);
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  await vi.waitFor(
    () => {
      expect(check(), what).toBe(true);
    },
    { timeout: ms, interval: 10 },
  );
}

async function start(options: ServeHttpOptions = {}): Promise<Server> {
  const dispatcher = new Dispatcher({ logger: silentLogger });
  dispatcher.registerTool({
    name: 'poll',
    description: 'Closes its stream, then reports progress and answers once released',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    handler: async ({ key }, ctx) => {
      ctx.progress(1, 3, 'before the close');
      const close = ctx.request.closeStream;
      if (close === undefined) return `no closeStream for ${key}`;
      close();
      ctx.progress(2, 3, 'while disconnected');
      await gate(key);
      ctx.progress(3, 3, 'after the release');
      return `done ${key}`;
    },
  });
  dispatcher.registerResource({
    uri: 'test://doc',
    name: 'doc',
    mimeType: 'text/plain',
    read: () => ({ uri: 'test://doc', mimeType: 'text/plain', text: 'doc' }),
  });
  const core = createServerCore({
    handler: dispatcher,
    registry: new SubscriptionRegistry(),
    serverInfo: { name: 'resumable-sse-test', version: '1.0.0' },
    logger: silentLogger,
  });
  const transport = await serveHttp(core, { retryMs: 50, ...options });
  return {
    core,
    url: `http://localhost:${transport.address.port}/mcp`,
    activeRequests: () => transport.activeRequests,
    sessionCount: () => transport.sessionCount,
    async close() {
      await transport.close(500);
      await core.close();
    },
  };
}

interface SseEvent {
  id?: string;
  retry?: number;
  data?: string;
}

/** Reads a whole SSE body into events (the stream must end). */
async function eventsOf(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = line.slice(0, colon);
        const value = line.slice(colon + 2);
        if (field === 'id') event.id = value;
        else if (field === 'retry') event.retry = Number(value);
        else if (field === 'data') event.data = value;
      }
      return event;
    });
}

/** A raw legacy session (initialize + initialized). */
async function rawSession(url: string) {
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
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const sessionId = init.headers.get('mcp-session-id') as string;
  await init.text();
  headers['mcp-session-id'] = sessionId;
  headers['mcp-protocol-version'] = '2025-11-25';
  await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return {
    sessionId,
    headers,
    call: (id: number, name: string, args: Record<string, unknown>) =>
      fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: args, _meta: { progressToken: `p${id}` } },
        }),
      }),
    resume: (lastEventId: string, extra: Record<string, string> = {}) =>
      fetch(url, {
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
          'last-event-id': lastEventId,
          ...extra,
        },
      }),
  };
}

describe('legacy SSE resumability, in-memory event store', () => {
  let server: Server;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('the official SDK client gets the whole call through a server-closed POST stream', async () => {
    const gets: (string | null)[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: (input, init) => {
        if (init?.method === 'GET') gets.push(new Headers(init.headers).get('last-event-id'));
        return fetch(input, init);
      },
    });
    const client = new Client({ name: 'resume-sdk', version: '1.0.0' });
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    const progress: string[] = [];
    const call = client.callTool({ name: 'poll', arguments: { key: 'sdk' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
      timeout: 30_000,
    });
    // The client resumes on its own (GET + Last-Event-ID of the closed POST stream) and waits there.
    await until(() => gets.some((id) => id !== null), 'the resuming GET');
    await release('sdk');
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'done sdk' }]);
    expect(progress).toEqual(['before the close', 'while disconnected', 'after the release']);
    const resumedFrom = gets.find((id) => id !== null) as string;
    expect(resumedFrom).toMatch(/^[A-Za-z0-9_-]+:\d+$/);
    await client.close();
  });

  it('a POST stream opens with a priming event (id, retry, empty data) and the resume replays only its own events', async () => {
    const session = await rawSession(server.url);
    const [a, b] = await Promise.all([
      session.call(1, 'poll', { key: 'a' }),
      session.call(2, 'poll', { key: 'b' }),
    ]);
    expect(a.headers.get('content-type')).toContain('text/event-stream');
    const [eventsA, eventsB] = await Promise.all([eventsOf(a), eventsOf(b)]);
    // Priming first, then the progress sent before the close; the connection ends without the result.
    expect(eventsA[0]).toMatchObject({ retry: 50, data: '' });
    expect(eventsA[0]?.id).toMatch(/^[A-Za-z0-9_-]+:0$/);
    expect(eventsA.map((e) => e.data !== '' && JSON.parse(e.data ?? '').params?.message)).toEqual([
      false,
      'before the close',
    ]);
    const streamA = eventsA[0]?.id?.split(':')[0];
    const streamB = eventsB[0]?.id?.split(':')[0];
    expect(streamA).not.toBe(streamB);

    await release('a');
    const resumed = await session.resume(eventsA[1]?.id as string);
    expect(resumed.status).toBe(200);
    const replay = await eventsOf(resumed);
    const messages = replay.filter((e) => e.data !== undefined).map((e) => JSON.parse(e.data as string));
    // Only stream A's events after the one named, in order, the response last; then the GET ends.
    expect(messages.map((m) => m.params?.message ?? m.result?.content?.[0]?.text)).toEqual([
      'while disconnected',
      'after the release',
      'done a',
    ]);
    expect(messages.at(-1)).toMatchObject({ id: 1 });
    expect(replay.filter((e) => e.id !== undefined).every((e) => e.id?.startsWith(`${streamA}:`))).toBe(true);

    // Resuming from the priming event replays everything; B is still running and follows live.
    const following = session.resume(eventsB[0]?.id as string);
    const live = await following;
    expect(live.status).toBe(200);
    const reading = eventsOf(live);
    await release('b');
    const bMessages = (await reading)
      .filter((e) => e.data !== undefined)
      .map((e) => JSON.parse(e.data as string));
    expect(bMessages.map((m) => m.params?.message ?? m.result?.content?.[0]?.text)).toEqual([
      'before the close',
      'while disconnected',
      'after the release',
      'done b',
    ]);
  });

  it('another session cannot resume a stream, and unknown or malformed ids are refused without a 404', async () => {
    const owner = await rawSession(server.url);
    const other = await rawSession(server.url);
    const post = await owner.call(7, 'poll', { key: 'private' });
    const events = await eventsOf(post);
    const id = events[0]?.id as string;
    const stolen = await other.resume(id);
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({ error: { code: -32600 } });
    expect((await owner.resume('not-an-event-id')).status).toBe(400);
    expect((await owner.resume('AAAAAAAAAAAAAAAA:3')).status).toBe(400);
    await release('private');
    expect((await eventsOf(await owner.resume(id))).at(-1)?.data).toContain('done private');
  });

  it('a GET stream resumed with Last-Event-ID gets what was pushed while it was down', async () => {
    const session = await rawSession(server.url);
    await fetch(server.url, {
      method: 'POST',
      headers: session.headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'resources/subscribe',
        params: { uri: 'test://doc' },
      }),
    });
    const controller = new AbortController();
    const get = await fetch(server.url, {
      method: 'GET',
      signal: controller.signal,
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session.sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    const reader = (get.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const primingId = /id: (\S+)/.exec(first)?.[1] as string;
    expect(primingId).toMatch(/:0$/);
    controller.abort();
    // Pushed while no GET connection is open: recorded on the GET stream for the resume.
    await until(() => server.activeRequests() === 0, 'the server to see the GET stream close');
    server.core.notifyResourceUpdated('test://doc');
    const resumed = await session.resume(primingId);
    expect(resumed.status).toBe(200);
    const replay = (resumed.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('notifications/resources/updated')) {
      const chunk = await replay.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    // The retry advice, then the update under the GET stream's next id.
    expect(text).toMatch(/^retry: 50\n\n/);
    expect(text).toContain(`id: ${primingId.replace(/:0$/, ':1')}\n`);
    await replay.cancel();
  });

  it('a resumed GET stream keeps its session from being reaped, like the GET it replaces', async () => {
    const short = await start({ sessionTtlMs: 500 });
    try {
      const session = await rawSession(short.url);
      const controller = new AbortController();
      const get = await fetch(short.url, {
        signal: controller.signal,
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session.sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      });
      const first = new TextDecoder().decode(
        (await (get.body as ReadableStream<Uint8Array>).getReader().read()).value,
      );
      const primingId = /id: (\S+)/.exec(first)?.[1] as string;
      controller.abort();
      const resumed = await session.resume(primingId);
      expect(resumed.status).toBe(200);
      // A session idle since after the resume, with no stream, is reaped: the reaper has run past
      // the TTL of both, and the resumed one must still answer.
      await rawSession(short.url);
      expect(short.sessionCount()).toBe(2);
      await until(() => short.sessionCount() === 1, 'the reaper to end the idle session');
      const ping = await fetch(short.url, {
        method: 'POST',
        headers: session.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
      });
      expect(ping.status).toBe(200);
      await resumed.body?.cancel();
    } finally {
      await short.close();
    }
  });

  it('the 2026-07-28 era has no event ids', async () => {
    const res = await modernPost(server.url, 'tools/call', { name: 'poll', arguments: { key: 'modern' } });
    const text = await res.text();
    expect(text).not.toMatch(/^id:/m);
    expect(text).toContain('no closeStream for modern');
  });
});

describe('an ended session', () => {
  it("leaves the event store with its streams at once, not at the store's expiry", async () => {
    const store = new MemoryEventStore();
    const server = await start({ eventStore: store });
    try {
      const session = await rawSession(server.url);
      const controller = new AbortController();
      const get = await fetch(server.url, {
        method: 'GET',
        signal: controller.signal,
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session.sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      });
      const reader = (get.body as ReadableStream<Uint8Array>).getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const streamId = (/id: (\S+):0/.exec(first)?.[1] ?? '') as string;
      await vi.waitFor(async () => expect(await store.owner(streamId)).toBeDefined(), { timeout: 10_000 });
      controller.abort();
      const deleted = await fetch(server.url, { method: 'DELETE', headers: session.headers });
      expect(deleted.status).toBeLessThan(300);
      await vi.waitFor(
        async () => expect(await store.owner(streamId), 'stream still stored').toBeUndefined(),
        {
          timeout: 10_000,
        },
      );
    } finally {
      await server.close();
    }
  });
});

describe('legacy SSE resumability off (eventStore: false)', () => {
  it('no ids, no priming, and tools see no closeStream', async () => {
    const server = await start({ eventStore: false });
    try {
      const session = await rawSession(server.url);
      const res = await session.call(1, 'poll', { key: 'off' });
      const text = await res.text();
      expect(text).not.toMatch(/^id:/m);
      expect(text).toContain('no closeStream for off');
    } finally {
      await server.close();
    }
  });
});
