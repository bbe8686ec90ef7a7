/** Legacy era end to end over a real unix socket: handshake, session state, subscriptions, client requests. */

import { memoryLogger, type NdjsonClient, testHandler } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerCore } from './core-types.js';
import { createServerCore } from './server-core.js';
import { type SocketServer, startSocketServer } from './test-support/socket-server.js';

let server: SocketServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(): Promise<{
  core: ServerCore;
  client: NdjsonClient;
  handler: ReturnType<typeof testHandler>;
}> {
  const handler = testHandler();
  const core = createServerCore({
    handler,
    serverInfo: { name: 'test', version: '1.2.3' },
    logger: memoryLogger(),
  });
  server = await startSocketServer(core);
  return { core, client: await server.connect(), handler };
}

function initialize(client: NdjsonClient, protocolVersion = '2025-06-18') {
  return client.request('initialize', {
    protocolVersion,
    capabilities: { roots: { listChanged: true }, sampling: {} },
    clientInfo: { name: 'legacy-client', version: '0.1' },
  });
}

describe('legacy lifecycle', () => {
  it('echoes a supported version, counter-offers the newest legacy one, answers ping', async () => {
    const { client } = await setup();
    const init = await initialize(client);
    expect(init.result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        logging: {},
      },
      serverInfo: { name: 'test', version: '1.2.3' },
    });
    client.notify('notifications/initialized');
    expect((await initialize(client, '1999-01-01')).result?.protocolVersion).toBe('2025-11-25');
    expect((await client.request('ping')).result).toEqual({});
    // The notification got no reply: every message so far answers a request.
    expect(client.messages.every((m) => m.id !== undefined)).toBe(true);
  });

  it('rejects an initialize without a protocolVersion with -32602', async () => {
    const { client } = await setup();
    const response = await client.request('initialize', { capabilities: {} });
    expect(response.error?.code).toBe(-32602);
  });

  it('hands the session state (version, capabilities, client info, log level) to the handler', async () => {
    const { client } = await setup();
    await initialize(client);
    expect((await client.request('logging/setLevel', { level: 'warning' })).result).toEqual({});
    const echo = await client.request('test/echo', { _meta: { progressToken: 'p1' } });
    expect(echo.result).toMatchObject({
      era: 'legacy',
      protocolVersion: '2025-06-18',
      clientCapabilities: { roots: { listChanged: true }, sampling: {} },
      clientInfo: { name: 'legacy-client', version: '0.1' },
      logLevel: 'warning',
      progressToken: 'p1',
      origin: 'management',
      transport: 'unix',
      canAsk: true,
    });
    const bad = await client.request('logging/setLevel', { level: 'loud' });
    expect(bad.error?.code).toBe(-32602);
  });

  it('serves a legacy request before initialize with the newest legacy version', async () => {
    const { client } = await setup();
    const echo = await client.request('test/echo');
    expect(echo.result).toMatchObject({
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
    });
  });
});

describe('legacy subscriptions', () => {
  it('pushes one-shot updates once, in the spelling the client used', async () => {
    const { core, client } = await setup();
    await initialize(client);
    expect((await client.request('resources/subscribe', { uri: 'TEST://Run/1/' })).result).toEqual({});
    expect((await client.request('resources/subscribe', { uri: 'test://run/1' })).result).toEqual({});
    expect(core.notifyResourceUpdated('test://run/1')).toBe(1);
    const pushed = await client.waitFor((m) => m.method === 'notifications/resources/updated');
    expect(pushed.params).toEqual({ uri: 'TEST://Run/1/' });
    expect(core.notifyResourceUpdated('test://run/1')).toBe(0);
  });

  it('keeps repeated subscriptions until unsubscribe', async () => {
    const { core, client } = await setup();
    await client.request('resources/subscribe', { uri: 'test://session/a' });
    expect(core.notifyResourceUpdated('test://session/a', { keep: true })).toBe(1);
    expect(core.notifyResourceUpdated('test://session/a', { keep: true })).toBe(1);
    await client.request('ping');
    expect(client.messages.filter((m) => m.method === 'notifications/resources/updated')).toHaveLength(2);
    await client.request('resources/unsubscribe', { uri: 'test://session/a' });
    expect(core.notifyResourceUpdated('test://session/a', { keep: true })).toBe(0);
  });

  it('refuses uris the handler does not admit, with the handler reason when it gives one', async () => {
    const { client } = await setup();
    const refused = await client.request('resources/subscribe', { uri: 'test://forbidden' });
    expect(refused.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'test://forbidden' },
    });
    const reasoned = await client.request('resources/subscribe', { uri: 'test://throws' });
    expect(reasoned.error).toEqual({
      code: -32602,
      message: 'no such resource',
      data: { uri: 'test://throws' },
    });
    const missing = await client.request('resources/subscribe', {});
    expect(missing.error?.code).toBe(-32602);
  });

  it('answers -32601 to subscribe when the handler has no gate (no subscribe capability)', async () => {
    const handler = testHandler({ canSubscribe: null });
    const core = createServerCore({
      handler,
      serverInfo: { name: 't', version: '1' },
      logger: memoryLogger(),
    });
    expect(core.capabilities().resources).toEqual({ listChanged: true });
    server = await startSocketServer(core);
    const client = await server.connect();
    expect((await client.request('resources/subscribe', { uri: 'test://a' })).error?.code).toBe(-32601);
  });

  it('sends list_changed once per initialized connection, however many uris it holds', async () => {
    const { core, client } = await setup();
    await initialize(client);
    await client.request('resources/subscribe', { uri: 'test://a' });
    await client.request('resources/subscribe', { uri: 'test://b' });
    const other = await (server as SocketServer).connect();
    await initialize(other);
    const bystander = await (server as SocketServer).connect(); // never initialized: modern-style peer
    await bystander.request('ping');
    expect(core.notifyListChanged('tools')).toBe(2);
    await client.request('ping');
    await other.request('ping');
    await bystander.request('ping');
    expect(client.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(1);
    expect(other.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(1);
    expect(bystander.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(0);
  });
});

describe('server-to-client requests (legacy)', () => {
  it('routes the client response back to the handler', async () => {
    const { client } = await setup();
    await initialize(client);
    const pending = client.request('test/ask', {}, 'ask-1');
    const asked = await client.waitFor((m) => m.method === 'roots/list');
    expect(typeof asked.id).toBe('string');
    client.send({ jsonrpc: '2.0', id: asked.id, result: { roots: [{ uri: 'file:///w' }] } });
    expect((await pending).result).toEqual({ answer: { roots: [{ uri: 'file:///w' }] } });
  });

  it('turns a client error into the handler error, and ignores stray responses', async () => {
    const { client } = await setup();
    client.send({ jsonrpc: '2.0', id: 'nobody-asked', result: {} });
    const pending = client.request('test/ask', {}, 'ask-2');
    const asked = await client.waitFor((m) => m.method === 'roots/list');
    client.send({ jsonrpc: '2.0', id: asked.id, error: { code: -32601, message: 'no roots here' } });
    expect((await pending).error).toEqual({ code: -32601, message: 'no roots here' });
  });

  it('tells the client to stop when the originating request is cancelled', async () => {
    const { client } = await setup();
    void client.request('test/ask', {}, 'ask-3');
    const asked = await client.waitFor((m) => m.method === 'roots/list');
    client.notify('notifications/cancelled', { requestId: 'ask-3' });
    const cancelled = await client.waitFor((m) => m.method === 'notifications/cancelled');
    expect(cancelled.params).toMatchObject({ requestId: asked.id });
    await client.request('ping');
    expect(client.messages.some((m) => m.id === 'ask-3')).toBe(false);
  });
});

describe('client request timeout', () => {
  it('gives up on a silent client, tells it so, and the handler sees a local error', async () => {
    const logger = memoryLogger();
    const core = createServerCore({
      handler: testHandler(),
      serverInfo: { name: 't', version: '1' },
      logger,
      clientRequestTimeoutMs: 50,
    });
    server = await startSocketServer(core);
    const client = await server.connect();
    const response = await client.request('test/ask', {}, 'silent');
    const asked = client.messages.find((m) => m.method === 'roots/list');
    expect(response.error).toEqual({ code: -32603, message: 'Internal error' });
    const cancelled = await client.waitFor((m) => m.method === 'notifications/cancelled');
    expect(cancelled.params).toEqual({ requestId: asked?.id, reason: 'timed out' });
    expect(
      logger.records.some((r) => (r.fields.error as Error | undefined)?.message?.includes('no answer')),
    ).toBe(true);
  });
});

describe('limits', () => {
  it('caps subscriptions per connection (re-subscribing a held uri is still fine)', async () => {
    const handler = testHandler();
    const core = createServerCore({
      handler,
      serverInfo: { name: 't', version: '1' },
      logger: memoryLogger(),
      maxSubscriptionsPerConnection: 2,
    });
    server = await startSocketServer(core);
    const client = await server.connect();
    await client.request('resources/subscribe', { uri: 'test://1' });
    await client.request('resources/subscribe', { uri: 'test://2' });
    expect((await client.request('resources/subscribe', { uri: 'test://2/' })).result).toEqual({});
    const refused = await client.request('resources/subscribe', { uri: 'test://3' });
    expect(refused.error).toMatchObject({ code: -32602, data: { limit: 2 } });
    const other = await server.connect();
    expect((await other.request('resources/subscribe', { uri: 'test://3' })).result).toEqual({});
    const listen = await client.request('subscriptions/listen', {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
      notifications: { resourceSubscriptions: ['test://a', 'test://b', 'test://c'] },
    });
    expect(listen.error).toMatchObject({ code: -32602, data: { limit: 2 } });
  });
});
