/** Modern era (2026-07-28) end to end over a real unix socket: discover, _meta checks, listen streams. */

import {
  FULL_CAPABILITIES,
  MODERN_META,
  memoryLogger,
  type NdjsonClient,
  type TestHandlerOptions,
  testHandler,
} from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerCore } from './core-types.js';
import { createServerCore } from './server-core.js';
import { type SocketServer, startSocketServer } from './test-support/socket-server.js';

const SERVER_INFO = { name: 'test', version: '1.2.3' };
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
let server: SocketServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  options: TestHandlerOptions = {},
  lifecycle = {},
): Promise<{ core: ServerCore; client: NdjsonClient }> {
  const core = createServerCore({
    handler: testHandler(options),
    serverInfo: SERVER_INFO,
    logger: memoryLogger(),
    lifecycle,
  });
  server = await startSocketServer(core);
  return { core, client: await server.connect() };
}

describe('server/discover and per-request _meta', () => {
  it('answers discover with versions, capabilities, cache hints and serverInfo in _meta', async () => {
    const { client } = await setup({}, { instructions: 'be nice' });
    const response = await client.modern('server/discover', {}, 'd1');
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 'd1',
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        capabilities: FULL_CAPABILITIES,
        instructions: 'be nice',
        ttlMs: 60_000,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
  });

  it('rejects missing or malformed _meta fields with -32602 and unknown versions with -32022', async () => {
    const { client } = await setup();
    expect((await client.request('server/discover', {})).error?.code).toBe(-32602);
    const noCaps = await client.request('server/discover', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    });
    expect(noCaps.error?.code).toBe(-32602);
    const noVersion = await client.request('tools/list', {
      _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(noVersion.error?.code).toBe(-32602);
    const badLevel = await client.modern('tools/list', {
      _meta: { 'io.modelcontextprotocol/logLevel': 'loud' },
    });
    expect(badLevel.error?.code).toBe(-32602);
    for (const requested of ['v999.0.0', '2025-11-25']) {
      const response = await client.modern('server/discover', {
        _meta: { 'io.modelcontextprotocol/protocolVersion': requested },
      });
      expect(response.error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: {
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
          requested,
        },
      });
    }
    // clientInfo is optional.
    const minimal = await client.request('server/discover', {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
    expect(minimal.result?.resultType).toBe('complete');
  });

  it('answers -32601 to methods removed in 2026 when sent modern-style', async () => {
    const { client } = await setup();
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
    ]) {
      const response = await client.modern(method, {
        uri: 'test://a',
        level: 'info',
        protocolVersion: '2026-07-28',
      });
      expect(response.error?.code, method).toBe(-32601);
    }
  });

  it('decorates domain results with resultType and serverInfo, and serves them statelessly', async () => {
    const { client } = await setup();
    await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: { sampling: {} } });
    const list = await client.modern('tools/list');
    expect(list.result).toMatchObject({
      resultType: 'complete',
      tools: [{ name: 'echo' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
    const echo = await client.modern('test/echo', {
      _meta: { 'io.modelcontextprotocol/logLevel': 'info', progressToken: 7 },
    });
    expect(echo.result).toMatchObject({
      era: 'modern',
      protocolVersion: '2026-07-28',
      clientCapabilities: {},
      clientInfo: MODERN_META['io.modelcontextprotocol/clientInfo'],
      logLevel: 'info',
      progressToken: 7,
      canAsk: false,
    });
    // The legacy session on the same connection is untouched.
    expect((await client.request('test/echo')).result).toMatchObject({
      era: 'legacy',
      protocolVersion: '2025-06-18',
    });
  });

  it('modern-only: initialize is -32601 naming the supported versions, bare requests need _meta', async () => {
    const { client } = await setup({}, { versions: ['2026-07-28'] });
    const init = await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {} });
    expect(init.error?.code).toBe(-32601);
    expect(init.error?.message).toContain('2026-07-28');
    expect(init.error?.data).toEqual({ supported: ['2026-07-28'] });
    expect((await client.request('tools/list')).error?.code).toBe(-32602);
    expect((await client.request('ping')).error?.code).toBe(-32601);
    expect((await client.modern('server/discover')).result?.supportedVersions).toEqual(['2026-07-28']);
  });

  it('legacy-only: a modern request is -32022 listing the legacy versions', async () => {
    const { client } = await setup({}, { versions: ['2025-11-25', '2025-06-18'] });
    const response = await client.modern('server/discover');
    expect(response.error).toMatchObject({ code: -32022, data: { supported: ['2025-11-25', '2025-06-18'] } });
    expect(
      (await client.request('initialize', { protocolVersion: '2024-11-05' })).result?.protocolVersion,
    ).toBe('2025-11-25');
  });
});

describe('subscriptions/listen', () => {
  it('acks first with the honoured subset and tags every notification with the listen id', async () => {
    const { core, client } = await setup({
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true } },
    });
    void client.modern(
      'subscriptions/listen',
      {
        notifications: {
          toolsListChanged: true,
          promptsListChanged: true,
          resourceSubscriptions: ['test://a', 'test://forbidden'],
        },
      },
      7,
    );
    const ack = await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(client.messages[0]).toBe(ack);
    expect(ack.params).toEqual({
      _meta: { [SUB_ID]: 7 },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] },
    });
    expect(core.notifyListChanged('tools')).toBe(1);
    expect(core.notifyListChanged('prompts')).toBe(0);
    expect(core.notifyResourceUpdated('TEST://a/', { keep: true })).toBe(1);
    expect(core.notifyResourceUpdated('test://forbidden')).toBe(0);
    const updated = await client.waitFor((m) => m.method === 'notifications/resources/updated');
    expect(updated.params).toEqual({ uri: 'test://a', _meta: { [SUB_ID]: 7 } });
    const tools = await client.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect(tools.params).toEqual({ _meta: { [SUB_ID]: 7 } });

    client.notify('notifications/cancelled', { requestId: 7 });
    // A cancelled request is never answered, a listen included: the barrier's answer comes, 7's never.
    await client.modern('test/echo', {}, 'barrier');
    expect(client.messages.some((m) => m.id === 7)).toBe(false);
    expect(core.notifyListChanged('tools')).toBe(0);
    expect(core.registry.stats()).toMatchObject({ listenStreams: 0, subscriptions: 0 });
  });

  it('a listen the server ends itself (core.close) is answered its final result', async () => {
    const { core, client } = await setup({ capabilities: { tools: { listChanged: true } } });
    const final = client.modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 8);
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    await core.close();
    expect((await final).result).toEqual({
      resultType: 'complete',
      _meta: { [SUB_ID]: 8, 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('a listen cancelled while its subscribe gate is still deciding never opens and is never answered', async () => {
    let admit: (value: boolean) => void = () => {};
    const { core, client } = await setup({
      canSubscribe: () =>
        new Promise<boolean>((resolve) => {
          admit = resolve;
        }),
    });
    void client.modern(
      'subscriptions/listen',
      { notifications: { resourceSubscriptions: ['test://a'] } },
      11,
    );
    await client.modern('test/echo', {}, 'barrier-1');
    client.notify('notifications/cancelled', { requestId: 11 });
    await client.modern('test/echo', {}, 'barrier-2');
    admit(true);
    await client.modern('test/echo', {}, 'barrier-3');
    expect(
      client.messages.some((m) => m.id === 11 || m.method === 'notifications/subscriptions/acknowledged'),
    ).toBe(false);
    expect(core.registry.stats()).toMatchObject({ listenStreams: 0 });
  });

  it('keeps the JSON type of a string id and sends only requested kinds per stream', async () => {
    const { core, client } = await setup();
    void client.modern('subscriptions/listen', { notifications: { promptsListChanged: true } }, '9');
    void client.modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 9);
    await client.waitFor(
      (m) => m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta !== undefined,
    );
    await client.request('ping');
    expect(core.notifyListChanged('prompts')).toBe(1);
    const prompts = await client.waitFor((m) => m.method === 'notifications/prompts/list_changed');
    expect(prompts.params).toEqual({ _meta: { [SUB_ID]: '9' } });
    await client.request('ping');
    expect(client.messages.filter((m) => m.method === 'notifications/prompts/list_changed')).toHaveLength(1);
  });

  it('rejects a malformed filter (-32602) and answers -32601 when nothing can be delivered', async () => {
    const { client } = await setup();
    expect((await client.modern('subscriptions/listen', {})).error?.code).toBe(-32602);
    const bad = await client.modern('subscriptions/listen', {
      notifications: { resourceSubscriptions: 'x' },
    });
    expect(bad.error?.code).toBe(-32602);
    await server?.close();
    const quiet = await setup({ capabilities: { tools: {} } });
    expect(
      (await quiet.client.modern('subscriptions/listen', { notifications: { toolsListChanged: true } })).error
        ?.code,
    ).toBe(-32601);
  });

  it('ends open listen streams with their final result when the core closes', async () => {
    const { core, client } = await setup();
    const final = client.modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L');
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    const blocked = client.request('test/block', {}, 'B');
    await client.request('ping');
    await core.close();
    expect((await final).result?._meta).toMatchObject({ [SUB_ID]: 'L' });
    expect((await blocked).error).toEqual({ code: -32000, message: 'Server is shutting down' });
    expect((await client.request('ping')).error?.code).toBe(-32000);
  });
});
