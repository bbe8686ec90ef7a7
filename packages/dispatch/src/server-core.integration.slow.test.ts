/** The Dispatcher behind the real server core over unix sockets, in both eras. */
import type { JsonObject } from '@agentd/rpc-frame';
import { createServerCore, silentLogger } from '@agentd/server';
import { type SocketHarness, socketHarness } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';

let harness: SocketHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function catalogue(): Dispatcher {
  const d = new Dispatcher({
    logger: silentLogger,
    surfaceDebounceMs: 1,
    filtersFor: (peer) => (peer.origin === 'stdio' ? { visible: { deny: ['command_*'] } } : undefined),
  });
  d.registerTool({
    name: 'wizard',
    description: 'asks for a name, then a colour',
    handler: async (_args, ctx) => {
      ctx.log('info', 'wizard started');
      const name = await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
        { key: 'step1' },
      );
      const colour = await ctx.elicit(
        { message: 'Colour?', requestedSchema: { type: 'object', properties: {} } },
        { key: 'step2' },
      );
      return `${String((name.content as JsonObject).v)}/${String((colour.content as JsonObject).v)}`;
    },
  });
  d.registerOperation({
    kind: 'query',
    id: 'whoami',
    description: 'who',
    handler: async (_args, ctx) => {
      // Finish in a shuffled order: a random number of event-loop turns.
      for (let n = Math.floor(Math.random() * 5); n > 0; n--) await new Promise((r) => setImmediate(r));
      return { origin: ctx.peer.origin, connection: ctx.peer.connectionId, id: ctx.requestId };
    },
  });
  d.registerOperation({ kind: 'command', id: 'drain', description: 'drain', handler: () => 'drained' });
  d.registerResource({ uri: 'agent://status', name: 'status', read: () => 'ok' });
  return d;
}

async function start(dispatcher: Dispatcher) {
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'dispatch-test', version: '1.0.0' },
    logger: silentLogger,
  });
  dispatcher.onSurfaceChanged((kinds) => {
    for (const kind of kinds) core.notifyListChanged(kind);
  });
  harness = await socketHarness(core);
  return { core, harness };
}

describe('through createServerCore over a unix socket', () => {
  it('legacy: elicitation goes to the client as server requests, logs respect logging/setLevel', async () => {
    const { harness } = await start(catalogue());
    const peer = await harness.connect('management');
    const init = await peer.request(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 't', version: '1' },
      },
      1,
    );
    expect(init.result?.capabilities).toMatchObject({ tools: { listChanged: true } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await peer.request('logging/setLevel', { level: 'info' }, 2);
    let asked = 0;
    peer.onRequest = (message) => {
      expect(message.method).toBe('elicitation/create');
      asked++;
      return { action: 'accept', content: { v: asked === 1 ? 'Ada' : 'teal' } };
    };
    const result = await peer.request('tools/call', { name: 'wizard', arguments: {} }, 3);
    expect(result.result).toEqual({ content: [{ type: 'text', text: 'Ada/teal' }] });
    expect(asked).toBe(2);
    const log = peer.messages.find((m) => m.method === 'notifications/message');
    expect(log?.params).toMatchObject({ level: 'info', data: 'wizard started' });
  });

  it('modern: input_required rounds through the core, then complete with serverInfo in _meta', async () => {
    const { harness } = await start(catalogue());
    const peer = await harness.connect('management');
    const caps = { elicitation: {} };
    const r1 = await peer.modern('tools/call', { name: 'wizard', arguments: {} }, 'a', caps);
    expect(r1.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { step1: { method: 'elicitation/create' } },
    });
    const r2 = await peer.modern(
      'tools/call',
      {
        name: 'wizard',
        arguments: {},
        requestState: r1.result?.requestState,
        inputResponses: { step1: { action: 'accept', content: { v: 'Bo' } } },
      },
      'b',
      caps,
    );
    const r3 = await peer.modern(
      'tools/call',
      {
        name: 'wizard',
        arguments: {},
        requestState: r2.result?.requestState,
        inputResponses: { step2: { action: 'accept', content: { v: 'red' } } },
      },
      'c',
      caps,
    );
    expect(r3.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Bo/red' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'dispatch-test', version: '1.0.0' } },
    });
    // no server-to-client requests and no log messages without a logLevel in the modern era
    expect(peer.messages.filter((m) => m.method !== undefined)).toEqual([]);
    const tampered = await peer.modern(
      'tools/call',
      { name: 'wizard', arguments: {}, requestState: `${String(r1.result?.requestState)}x` },
      'd',
      caps,
    );
    expect(tampered.error?.code).toBe(-32602);
  });

  it('params that are not an object are refused before the dispatcher routes them (-32600), in both eras', async () => {
    const dispatcher = new Dispatcher({ logger: silentLogger });
    dispatcher.registerTool({ name: 'echo', description: 'echo', handler: () => 'ok' });
    // A task tool: the dispatcher then routes tasks/* itself.
    dispatcher.registerTool({ name: 'job', description: 'job', task: 'optional', handler: () => 'done' });
    const { harness } = await start(dispatcher);
    const peer = await harness.connect('management');
    await peer.initialize('2025-11-25');
    const cases: [string, unknown][] = [
      ['tools/call', [1]],
      ['tasks/get', 'x'],
      ['tasks/list', 7],
      ['resources/read', null],
    ];
    for (const [index, [method, params]] of cases.entries()) {
      const id = 100 + index;
      const answer = peer.waitFor((m) => m.id === id, 5_000, `the answer to ${method}`);
      peer.sendRaw(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      expect(await answer).toMatchObject({
        id,
        error: { code: -32600, message: 'Invalid Request: params must be an object' },
      });
    }
    // Modern-shaped or not, the connection goes on serving.
    expect((await peer.legacy('tools/call', { name: 'echo', arguments: {} })).content).toEqual([
      { type: 'text', text: 'ok' },
    ]);
    expect((await peer.modern('tools/call', { name: 'echo', arguments: {} })).result?.resultType).toBe(
      'complete',
    );
  });

  it('two peers with different filters and colliding request ids never see each other’s results', async () => {
    const { harness } = await start(catalogue());
    const management = await harness.connect('management');
    const stdio = await harness.connect('stdio');
    const calls: Promise<void>[] = [];
    for (let id = 1; id <= 15; id++) {
      for (const [peer, origin] of [
        [management, 'management'],
        [stdio, 'stdio'],
      ] as const) {
        calls.push(
          peer.modern('tools/call', { name: 'query_whoami' }, id).then((response) => {
            expect(response.result?.structuredContent).toMatchObject({ origin, id });
          }),
        );
      }
    }
    calls.push(
      stdio
        .modern('tools/call', { name: 'command_drain' }, 99)
        .then((r) => expect(r.error).toEqual({ code: -32602, message: 'Unknown tool: command_drain' })),
      management
        .modern('tools/call', { name: 'command_drain' }, 99)
        .then((r) => expect(r.result?.content).toEqual([{ type: 'text', text: 'drained' }])),
    );
    await Promise.all(calls);
    const stdioList = await stdio.modern('tools/list', {}, 'l');
    expect(((stdioList.result?.tools ?? []) as JsonObject[]).map((t) => t.name)).toEqual([
      'query_whoami',
      'wizard',
    ]);
    expect(stdioList.result).toMatchObject({ cacheScope: 'private', resultType: 'complete' });
  });

  it('a registration after start reaches a legacy peer as notifications/tools/list_changed', async () => {
    const dispatcher = catalogue();
    const { harness } = await start(dispatcher);
    const peer = await harness.connect('management');
    await peer.request(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      1,
    );
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await peer.request('tools/list', {}, 2);
    dispatcher.registerTool({ name: 'late', description: 'added later', handler: () => 'late' });
    const changed = await peer.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect(changed).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const list = await peer.request('tools/list', {}, 3);
    expect(((list.result?.tools ?? []) as JsonObject[]).map((t) => t.name)).toContain('late');
  });

  it('legacy resources/subscribe is gated by visibility and delivers updates', async () => {
    const { core, harness } = await start(catalogue());
    const peer = await harness.connect('stdio');
    await peer.request(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      1,
    );
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await peer.request('resources/subscribe', { uri: 'agent://status' }, 2)).result).toEqual({});
    const hidden = await peer.request('resources/subscribe', { uri: 'mcp://schema/command/drain' }, 3);
    const unknown = await peer.request('resources/subscribe', { uri: 'agent://nope' }, 4);
    const read = await peer.request('resources/read', { uri: 'agent://nope' }, 5);
    // Subscribing to a missing (or hidden) resource answers exactly what reading it answers.
    expect(read.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'agent://nope' },
    });
    expect(unknown.error).toEqual(read.error);
    expect(hidden.error).toEqual({ ...read.error, data: { uri: 'mcp://schema/command/drain' } });
    core.notifyResourceUpdated('agent://status');
    const updated = await peer.waitFor((m) => m.method === 'notifications/resources/updated');
    expect(updated.params).toEqual({ uri: 'agent://status' });
  });
});
