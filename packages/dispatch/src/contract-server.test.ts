/** ContractServer: every rule of the stateless tool-server contract. */

import { MetaKey } from '@agentd/lifecycle';
import { type JsonObject, silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { ContractServer } from './contract-server.js';
import { InputRequired } from './input-required.js';
import { INPUT_REQUIRED_TEXT } from './mcp-contract.js';

function server() {
  const s = new ContractServer({ logger: silentLogger });
  s.registerTool(
    'greet',
    'Greets someone',
    { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    (args) => `Hello, ${String(args.name)}!`,
  );
  s.registerTool(
    'sum',
    'Adds',
    { type: 'object', properties: { a: {}, b: {} }, required: ['a', 'b'] },
    (args) => ({
      total: Number(args.a) + Number(args.b),
    }),
  );
  s.registerTool('count', 'Counts', { type: 'object' }, () => 3);
  s.registerTool('nothing', 'Nothing', { type: 'object' }, () => undefined);
  s.registerTool('boom', 'Throws', { type: 'object' }, () => {
    throw new Error('kaput');
  });
  s.registerTool('typeboom', 'Throws a TypeError', { type: 'object' }, () => {
    throw new TypeError('bad type');
  });
  s.registerTool('delete', 'Deletes after confirmation', { type: 'object' }, (_args, inputResponses) => {
    const answer = String(inputResponses?.confirm ?? '')
      .trim()
      .toLowerCase();
    if (answer !== 'yes')
      throw new InputRequired([{ id: 'confirm', prompt: "Type 'yes' to confirm deletion." }]);
    return 'deleted';
  });
  s.registerTool('async', 'Async', { type: 'object' }, async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return 'later';
  });
  return s;
}

const call = (params: JsonObject, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params,
});

describe('ContractServer (the stateless tool-server contract)', () => {
  it('answers -32600 for non-object requests, missing method or bad jsonrpc, preserving the id', async () => {
    const s = server();
    for (const bad of [null, 42, 'x', [1, 2], undefined]) {
      expect(await s.handleRequest(bad)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    expect(await s.handleRequest({ jsonrpc: '2.0', id: 7 })).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
    expect(await s.handleRequest({ jsonrpc: '1.0', id: 'a', method: 'tools/list' })).toMatchObject({
      id: 'a',
      error: { code: -32600 },
    });
    expect(await s.handleRequest({ id: 3, method: 'tools/list' })).toMatchObject({
      id: 3,
      error: { code: -32600 },
    });
  });

  it('answers -32601 for unknown methods, and for initialize with the stateless explanation', async () => {
    const s = server();
    expect(await s.handleRequest({ jsonrpc: '2.0', id: 1, method: 'resources/list' })).toMatchObject({
      id: 1,
      error: { code: -32601 },
    });
    const init = await s.handleRequest({ jsonrpc: '2.0', id: 2, method: 'initialize', params: {} });
    expect(init).toMatchObject({ id: 2, error: { code: -32601 } });
    expect((init.error as JsonObject).message).toMatch(
      /initialize was removed by the stateless 2026-07-28 specification/,
    );
  });

  it('answers -32600 when _meta.protocolVersion is not 2026-07-28', async () => {
    const s = server();
    const topLevel = await s.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      _meta: { protocolVersion: '2025-06-18' },
    });
    expect(topLevel).toMatchObject({ id: 1, error: { code: -32600 } });
    const inParams = await s.handleRequest({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
      params: { _meta: { protocolVersion: '2025-11-25' } },
    });
    expect(inParams).toMatchObject({ id: 2, error: { code: -32600 } });
    const good = await s.handleRequest({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      _meta: { protocolVersion: '2026-07-28' },
    });
    expect(good).toHaveProperty('result');
  });

  it('lists tools as {name, description, inputSchema}', async () => {
    const response = await server().handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const tools = (response.result as { tools: JsonObject[] }).tools;
    expect(tools.find((t) => t.name === 'greet')).toEqual({
      name: 'greet',
      description: 'Greets someone',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    for (const tool of tools)
      expect(Object.keys(tool).sort()).toEqual(['description', 'inputSchema', 'name']);
  });

  it('passes inputResponses only when the call carried some (undefined otherwise, as in the seed)', async () => {
    const seen: unknown[] = [];
    const s = new ContractServer();
    s.registerTool('probe', 'Records its input responses', { type: 'object' }, (_args, inputResponses) => {
      seen.push(inputResponses);
      return 'ok';
    });
    await s.handleRequest(call({ name: 'probe', arguments: {} }));
    await s.handleRequest(call({ name: 'probe', arguments: {}, inputResponses: { confirm: 'yes' } }));
    expect(seen).toEqual([undefined, { confirm: 'yes' }]);
  });

  it('calls handler(arguments, inputResponses) and returns String(output) (objects as JSON)', async () => {
    const s = server();
    expect(await s.handleRequest(call({ name: 'greet', arguments: { name: 'Ada' } }, 'g'))).toMatchObject({
      jsonrpc: '2.0',
      id: 'g',
      result: { content: [{ type: 'text', text: 'Hello, Ada!' }], resultType: 'complete' },
    });
    const sum = await s.handleRequest(call({ name: 'sum', arguments: { a: 1, b: 2 } }));
    expect((sum.result as JsonObject).content).toEqual([{ type: 'text', text: '{"total":3}' }]);
    const count = await s.handleRequest(call({ name: 'count' }));
    expect((count.result as JsonObject).content).toEqual([{ type: 'text', text: '3' }]);
    const nothing = await s.handleRequest(call({ name: 'nothing' }));
    expect((nothing.result as JsonObject).content).toEqual([{ type: 'text', text: 'undefined' }]);
    const later = await s.handleRequest(call({ name: 'async' }));
    expect((later.result as JsonObject).content).toEqual([{ type: 'text', text: 'later' }]);
  });

  it('answers an unregistered tool with isError "Tool not found"', async () => {
    expect(await server().handleRequest(call({ name: 'missing' }, 9))).toMatchObject({
      jsonrpc: '2.0',
      id: 9,
      result: { isError: true, content: [{ type: 'text', text: 'Tool not found' }] },
    });
  });

  it('answers a missing required argument with isError "Missing required argument: <arg>"', async () => {
    const s = server();
    const response = await s.handleRequest(call({ name: 'sum', arguments: { a: 1 } }));
    expect(response.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Missing required argument: b' }],
    });
    const none = await s.handleRequest(call({ name: 'greet' }));
    expect(none.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Missing required argument: name' }],
    });
  });

  it('turns InputRequired into resultType input_required with requests and the fixed text; the retry completes', async () => {
    const s = server();
    const first = await s.handleRequest(call({ name: 'delete', arguments: {} }));
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      requests: [{ id: 'confirm', prompt: "Type 'yes' to confirm deletion." }],
      content: [{ type: 'text', text: INPUT_REQUIRED_TEXT }],
    });
    expect(INPUT_REQUIRED_TEXT).toBe('Additional client input is required before this tool can finish.');
    const retry = await s.handleRequest(
      call({ name: 'delete', arguments: {}, inputResponses: { confirm: 'yes' } }, 2),
    );
    expect(retry.result).toMatchObject({ content: [{ type: 'text', text: 'deleted' }] });
    // echoing the requestState works too
    const echoed = await s.handleRequest(
      call(
        {
          name: 'delete',
          arguments: {},
          inputResponses: { confirm: 'YES' },
          requestState: (first.result as JsonObject).requestState,
        },
        3,
      ),
    );
    expect(echoed.result).toMatchObject({ content: [{ type: 'text', text: 'deleted' }] });
  });

  it('keyed InputRequired requests also appear as spec inputRequests', async () => {
    const s = new ContractServer();
    s.registerTool('ask', 'Asks', { type: 'object' }, (_args, responses) => {
      if (!responses?.user_name) {
        throw new InputRequired({
          user_name: { method: 'elicitation/create', params: { message: 'What is your name?' } },
        });
      }
      return `Hello, ${JSON.stringify(responses?.user_name)}!`;
    });
    const first = await s.handleRequest(call({ name: 'ask' }));
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      requests: { user_name: { method: 'elicitation/create' } },
      inputRequests: { user_name: { method: 'elicitation/create' } },
    });
  });

  it('returns any other throw as isError "Error: <message>"', async () => {
    const s = server();
    expect((await s.handleRequest(call({ name: 'boom' }))).result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: kaput' }],
      resultType: 'complete',
    });
    expect((await s.handleRequest(call({ name: 'typeboom' }))).result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: bad type' }],
    });
  });

  it('answers -32602 for tools/call without a tool name', async () => {
    const s = server();
    expect(await s.handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call' })).toMatchObject({
      error: { code: -32602 },
    });
    expect(await s.handleRequest(call({ arguments: {} }))).toMatchObject({ error: { code: -32602 } });
  });

  it('replaces a tool registered twice under one name', async () => {
    const s = server();
    s.registerTool('greet', 'Greets loudly', { type: 'object' }, () => 'HI');
    const response = await s.handleRequest(call({ name: 'greet' }));
    expect((response.result as JsonObject).content).toEqual([{ type: 'text', text: 'HI' }]);
  });

  it('is a face over a Dispatcher that serves the same tools', async () => {
    const s = server();
    expect(s.dispatcher.hasTool('greet')).toBe(true);
    expect(s.dispatcher.capabilities()).toMatchObject({ tools: { listChanged: true } });
  });

  it('answers a request without an id (or with id null) with id null, as the contract returns a response for every request', async () => {
    const s = server();
    expect(
      await s.handleRequest({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'count' } }),
    ).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      result: { content: [{ type: 'text', text: '3' }], resultType: 'complete' },
    });
    expect(await s.handleRequest({ jsonrpc: '2.0', id: null, method: 'initialize' })).toMatchObject({
      id: null,
      error: { code: -32601 },
    });
    expect(await s.handleRequest({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
  });

  it('handle(text) answers JSON text with JSON text; text that is not JSON is -32700', async () => {
    const s = server();
    expect(
      JSON.parse(
        await s.handle('{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"count"}}'),
      ),
    ).toMatchObject({
      id: 't',
      result: { content: [{ type: 'text', text: '3' }] },
    });
    expect(JSON.parse(await s.handle('{"jsonrpc":'))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('sends internal errors to the logger, never to the client', async () => {
    const records: { level: string; message: string; fields: unknown }[] = [];
    const record =
      (level: string) =>
      (message: string, fields?: unknown): void => {
        records.push({ level, message, fields });
      };
    const logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const s = new ContractServer({ logger });
    s.registerTool('circular', 'Returns what JSON cannot hold', { type: 'object' }, () => {
      const value: Record<string, unknown> = {};
      value.self = value;
      return value;
    });
    const circular = await s.handleRequest(call({ name: 'circular' }));
    expect(JSON.stringify(circular)).not.toMatch(/circular|self|TypeError/i);
    expect(circular.result).toMatchObject({ isError: true });
    expect(records.some((r) => r.level === 'error' && JSON.stringify(r.fields).includes('circular'))).toBe(
      true,
    );

    // A failure below the contract (here: the dispatcher itself) is -32603 with generic text, logged in full.
    s.dispatcher.handle = () => Promise.reject(new Error('database password is hunter2'));
    const failed = await s.handleRequest({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    expect(failed).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32603, message: 'Internal error' } });
    const logged = records.find((r) => r.message === 'request failed with an internal error');
    expect(logged?.level).toBe('error');
    expect(String((logged?.fields as { error?: Error } | undefined)?.error)).toContain('hunter2');

    // A tool's own throw is the client's to read (the contract), and a debug record here.
    s.registerTool('boom', 'Throws', { type: 'object' }, () => {
      throw new Error('kaput');
    });
    delete (s.dispatcher as { handle?: unknown }).handle;
    expect((await s.handleRequest(call({ name: 'boom' }))).result).toMatchObject({
      content: [{ type: 'text', text: 'Error: kaput' }],
    });
    expect(records.some((r) => r.level === 'debug' && r.message === 'ContractServer: tool threw')).toBe(true);
  });

  it('reads clientCapabilities, logLevel and progressToken from params._meta by the reserved keys', async () => {
    const s = new ContractServer({ logger: silentLogger });
    const notes: unknown[] = [];
    s.dispatcher.registerTool({
      name: 'report',
      description: 'Reports progress and logs',
      inputSchema: { type: 'object' },
      handler: async (_args, context) => {
        context.progress(1, 2);
        context.log('info', 'hello');
        context.log('debug', 'too quiet');
        return 'ok';
      },
    });
    await s.handleRequest(
      call({
        name: 'report',
        _meta: { progressToken: 'p1', [MetaKey.logLevel]: 'info', [MetaKey.clientCapabilities]: {} },
      }),
      { notify: (note) => notes.push(note) },
    );
    expect(notes).toMatchObject([
      { method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2 } },
      { method: 'notifications/message', params: { level: 'info', data: 'hello' } },
    ]);
    expect(notes).toHaveLength(2);
  });

  it('answers a request whose signal aborts with -32000, and aborts its handler', async () => {
    const s = new ContractServer({ logger: silentLogger });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let aborted = false;
    s.dispatcher.registerTool({
      name: 'hang',
      description: 'Waits until cancelled',
      inputSchema: { type: 'object' },
      handler: (_args, context) =>
        new Promise((resolve) => {
          started();
          context.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('cancelled');
          });
        }),
    });
    const controller = new AbortController();
    const answer = s.handleRequest(call({ name: 'hang' }, 'h'), { signal: controller.signal });
    await running;
    controller.abort();
    expect(await answer).toMatchObject({ jsonrpc: '2.0', id: 'h', error: { code: -32000 } });
    expect(aborted).toBe(true);
  });
});
