/** MCP over the addon's sockets, both eras, on the AF_UNIX stand-in (the accept/poll/stream path of vsock). */
import { once } from 'node:events';
import { createServerCore, type ServerCore, silentLogger } from '@agentd/server';
import { MODERN_META, NdjsonClient, toolHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nativeAddon } from './native.js';
import { type ServeVsockOptions, serveVsock, type VsockServer } from './serve-vsock.js';
import { bindUnixViaAddon, connectUnixViaAddon, tempSocketPath } from './test-support/unix-stand-in.js';
import { VsockSocket } from './vsock-socket.js';

const SERVER_INFO = { name: 'vsock-test', version: '0.0.1' };

interface Setup {
  core: ServerCore;
  server: VsockServer;
  handler: ReturnType<typeof toolHandler>;
  /** Ids of the requests the handler has started. */
  started: unknown[];
  connect(): Promise<NdjsonClient>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: ServeVsockOptions = {}): Promise<Setup> {
  const path = tempSocketPath();
  const started: unknown[] = [];
  const handler = toolHandler({ onRequest: (context) => started.push(context.requestId) });
  const core = createServerCore({ handler, serverInfo: SERVER_INFO, logger: silentLogger });
  const server = serveVsock(bindUnixViaAddon(path.path), core, options);
  cleanups.push(
    path.cleanup,
    () => server.close(0),
    () => core.close(),
  );
  const connect = async () => {
    const socket = connectUnixViaAddon(path.path);
    cleanups.push(() => void socket.destroy());
    await once(socket, 'connect');
    return new NdjsonClient(socket);
  };
  return { core, server, handler, started, connect };
}

describe('serveVsock, legacy era', () => {
  it('initializes, pings, lists and calls tools as origin management over transport vsock', async () => {
    const { connect } = await setup();
    const client = await connect();
    const init = await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    expect(init.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: SERVER_INFO,
      capabilities: { tools: {} },
    });
    client.notify('notifications/initialized');
    expect((await client.request('ping')).result).toEqual({});
    const list = await client.request('tools/list');
    expect(((list.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'slow', 'whoami']),
    );
    const call = await client.request('tools/call', { name: 'echo', arguments: { text: 'hello vsock' } });
    expect(call.result).toEqual({ content: [{ type: 'text', text: 'hello vsock' }] });
    const who = await client.request('tools/call', { name: 'whoami' });
    expect(who.result?.structuredContent).toEqual({
      origin: 'management',
      transport: 'vsock',
      attributes: {},
      era: 'legacy',
    });
  });

  it('answers unknown methods -32601 and unknown tools -32602, and keeps serving', async () => {
    const { connect } = await setup();
    const client = await connect();
    expect((await client.request('nope/nothing')).error?.code).toBe(-32601);
    expect((await client.request('tools/call', { name: 'missing' })).error?.code).toBe(-32602);
    expect((await client.request('ping')).result).toEqual({});
  });
});

describe('serveVsock, modern era (2026-07-28)', () => {
  it('discovers, lists and calls tools with per-request _meta', async () => {
    const { connect } = await setup();
    const client = await connect();
    const discover = await client.modern('server/discover', {}, 'd1');
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
    expect(discover.result?.supportedVersions).toContain('2026-07-28');
    const list = await client.modern('tools/list');
    expect(((list.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'slow', 'whoami']),
    );
    const call = await client.modern('tools/call', { name: 'echo', arguments: { text: 'modern' } });
    expect(call.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'modern' }],
    });
    const who = await client.modern('tools/call', { name: 'whoami' });
    expect(who.result?.structuredContent).toMatchObject({
      origin: 'management',
      transport: 'vsock',
      era: 'modern',
    });
  });

  it('refuses methods removed in 2026 and bad _meta with the spec codes', async () => {
    const { connect } = await setup();
    const client = await connect();
    expect((await client.modern('ping')).error?.code).toBe(-32601);
    const missing = await client.request('tools/list', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    });
    expect(missing.error?.code).toBe(-32602);
    const unsupported = await client.request('tools/list', {
      _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    });
    expect(unsupported.error?.code).toBe(-32022);
  });
});

describe('serveVsock, bad input and load', () => {
  it('answers malformed lines with -32700 / -32600 (id null) and keeps the connection', async () => {
    const { connect } = await setup();
    const client = await connect();
    client.sendRaw('this is not json\n');
    const parseError = await client.waitFor((m) => m.error?.code === -32700);
    expect(parseError.id).toBeNull();
    client.sendRaw('{"jsonrpc":"2.0","id":true,"method":"x"}\n');
    const invalid = await client.waitFor((m) => m.error?.code === -32600);
    expect(invalid.id).toBeNull();
    client.sendRaw('[]\n');
    client.sendRaw('\u0000\u0001\n');
    expect((await client.request('ping', undefined, 'after-garbage')).result).toEqual({});
  });

  it('closes a connection that sends an oversized frame, and still serves others', async () => {
    const { connect } = await setup({ maxFrameBytes: 1024 });
    const client = await connect();
    client.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4096) } });
    const refused = await client.waitFor((m) => m.error?.code === -32600);
    expect(refused.error?.message).toMatch(/limit is 1024 bytes/);
    await client.closed();
    const other = await connect();
    expect((await other.request('ping')).result).toEqual({});
  });

  it('answers 100 concurrent requests on one connection and across 5 connections, ids matched', async () => {
    const { connect } = await setup();
    const clients = await Promise.all(Array.from({ length: 5 }, () => connect()));
    const calls = clients.flatMap((client, c) =>
      Array.from({ length: 20 }, (_, i) =>
        (c % 2 === 0
          ? client.request('tools/call', { name: 'echo', arguments: { text: `${c}-${i}` } }, `r${c}-${i}`)
          : client.modern('tools/call', { name: 'echo', arguments: { text: `${c}-${i}` } }, `r${c}-${i}`)
        ).then((response) => ({ response, expected: `${c}-${i}`, id: `r${c}-${i}` })),
      ),
    );
    for (const { response, expected, id } of await Promise.all(calls)) {
      expect(response.id).toBe(id);
      expect(((response.result?.content ?? []) as Array<{ text: string }>)[0]?.text).toBe(expected);
    }
  });

  it('with halfCloseDrainMs, answers requests sent before the client half-closes', async () => {
    const { connect } = await setup({ halfCloseDrainMs: 5_000 });
    const client = await connect();
    const slow = client.request('tools/call', { name: 'slow', arguments: { ms: 30 } }, 's1');
    client.stream.end();
    expect((await slow).result).toEqual({ content: [{ type: 'text', text: 'slept 30' }] });
    await client.closed();
  });
});

describe('serveVsock, peers and shutdown', () => {
  it("exposes the accepted socket's CID and port as peer attributes, over the caller's", async () => {
    const { core, server, handler } = await setup({ attributes: { cid: 999, site: 'rack-1' } });
    // Accept a real connection by hand and give it the address a vsock accept(2) reports, then
    // hand it to the listener exactly as its accept loop does.
    const path = tempSocketPath();
    cleanups.push(path.cleanup);
    const raw = nativeAddon().listen({ family: 'unix', path: path.path }, 4);
    cleanups.push(() => raw.close());
    const client = connectUnixViaAddon(path.path);
    cleanups.push(() => void client.destroy());
    const accepted = raw.accept();
    expect(accepted).toBeDefined();
    const socket = new VsockSocket(accepted!.handle, { cid: 2, port: 1234 }, false, { allowHalfOpen: true });
    server.listener.emit('connection', socket);
    await once(client, 'connect');
    const who = await new NdjsonClient(client).request('tools/call', { name: 'whoami' });
    expect(who.result?.structuredContent).toMatchObject({
      attributes: { cid: 2, port: 1234, site: 'rack-1' },
    });
    expect(handler.state.connects.at(-1)?.attributes).toEqual({ cid: 2, port: 1234, site: 'rack-1' });
    expect(core.connectionCount).toBeGreaterThan(0);
  });

  it('close() stops accepting, lets in-flight requests finish, then ends every connection', async () => {
    const { connect, server, started } = await setup();
    const client = await connect();
    const idle = await connect();
    expect(server.connections).toBe(2);
    const slow = client.request('tools/call', { name: 'slow', arguments: { ms: 100 } }, 'slow');
    await vi.waitFor(
      () => {
        expect(started, 'the slow call to reach the handler').toContain('slow');
      },
      { timeout: 10_000, interval: 5 },
    );
    const closed = server.close(5_000);
    expect((await slow).result).toEqual({ content: [{ type: 'text', text: 'slept 100' }] });
    await closed;
    await Promise.all([client.closed(), idle.closed()]);
    expect(server.connections).toBe(0);
    expect(server.listener.listening).toBe(false);
  });

  it('refuses connections beyond maxConnections at accept', async () => {
    const { connect, server } = await setup({ maxConnections: 1 });
    const first = await connect();
    const second = await connect();
    await second.closed();
    expect((await first.request('ping')).result).toEqual({});
    expect(server.connections).toBe(1);
  });
});
