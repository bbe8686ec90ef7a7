/** tools/list and tools/call rules: order, cursors, cache fields, registration checks, error split, result shaping. */
import { ErrorCode } from '@agentd/lifecycle';
import { silentLogger, WireError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { makeContext, rpc } from './test-support/request-context.js';
import { ToolResult } from './tool-result.js';

const quiet = silentLogger;

function errorOf(promise: Promise<unknown>): Promise<WireError> {
  return promise.then(
    () => {
      throw new Error('expected a WireError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(WireError);
      return error as WireError;
    },
  );
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { text: string }[])[0]?.text ?? '';
}

describe('tools/list', () => {
  it('orders tools by name whatever the registration order, and pages with opaque cursors', async () => {
    const d = new Dispatcher({ pageSize: 2, logger: quiet });
    for (const name of ['delta', 'alpha', 'charlie', 'bravo', 'echo']) {
      d.registerTool({ name, description: name, handler: () => name });
    }
    const names: string[] = [];
    let cursor: unknown;
    let pages = 0;
    do {
      const result = await d.handle(rpc('tools/list', cursor === undefined ? {} : { cursor }), makeContext());
      names.push(...(result.tools as { name: string }[]).map((t) => t.name));
      cursor = result.nextCursor;
      pages++;
      if (cursor !== undefined) expect(typeof cursor).toBe('string');
    } while (cursor !== undefined);
    expect(names).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(pages).toBe(3);
  });

  it('rejects an invalid cursor with -32602', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({ name: 'a', description: 'a', handler: () => 'a' });
    for (const cursor of ['garbage!', 'Zm9v', 42, '', Buffer.from('["prompts","a"]').toString('base64url')]) {
      const error = await errorOf(d.handle(rpc('tools/list', { cursor }), makeContext()));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toBe('Invalid cursor');
    }
  });

  it('adds resultType, ttlMs and cacheScope only in the modern era', async () => {
    const d = new Dispatcher({ logger: quiet, cache: { listTtlMs: 1234 } });
    d.registerTool({ name: 'a', description: 'a', handler: () => 'a' });
    const modern = await d.handle(rpc('tools/list'), makeContext({ era: 'modern' }));
    expect(modern).toMatchObject({ ttlMs: 1234, cacheScope: 'public' });
    const legacy = await d.handle(rpc('tools/list'), makeContext());
    expect(legacy).not.toHaveProperty('resultType');
    expect(legacy).not.toHaveProperty('ttlMs');
  });

  it('uses cacheScope private when lists depend on the peer', async () => {
    const d = new Dispatcher({ logger: quiet, filtersFor: () => undefined });
    d.registerTool({ name: 'a', description: 'a', handler: () => 'a' });
    expect(await d.handle(rpc('tools/list'), makeContext({ era: 'modern' }))).toMatchObject({
      cacheScope: 'private',
    });
  });

  it('answers -32601 for tool methods when nothing is registered', async () => {
    const d = new Dispatcher({ logger: quiet });
    const error = await errorOf(d.handle(rpc('tools/list'), makeContext()));
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect((await errorOf(d.handle(rpc('nope/nope'), makeContext()))).code).toBe(ErrorCode.MethodNotFound);
    expect((await errorOf(d.handle(rpc('toString'), makeContext()))).code).toBe(ErrorCode.MethodNotFound);
  });
});

describe('registration', () => {
  it('refuses an invalid schema or a missing $ref at registration, though compiling waits for the first call', () => {
    const d = new Dispatcher();
    const tool = (inputSchema: Record<string, unknown>) => ({
      name: 't',
      description: 't',
      inputSchema,
      handler: () => 'ok',
    });
    expect(() => d.registerTool(tool({ type: 'object', properties: { a: { type: 'nope' } } }))).toThrow(
      expect.objectContaining({ code: 'invalid_schema' }),
    );
    expect(() =>
      d.registerTool(tool({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })),
    ).toThrow(expect.objectContaining({ code: 'invalid_schema' }));
    expect(() =>
      d.registerTool(tool({ type: 'object', properties: { a: { type: 'string' } } })),
    ).not.toThrow();
  });

  it('validates names', () => {
    const d = new Dispatcher({ logger: quiet });
    for (const name of ['', 'has space', 'x'.repeat(65), 'ünïcode', 'a:b']) {
      expect(() => d.registerTool({ name, description: 'd', handler: () => 1 })).toThrow(/name/);
    }
    for (const name of ['a', 'A-z_0.9/x', 'x'.repeat(64)]) {
      expect(() => d.registerTool({ name, description: 'd', handler: () => 1 })).not.toThrow();
    }
  });

  it('rejects duplicates, bad schemas, missing descriptions and operation/tool name clashes', () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({ name: 'query_x', description: 'd', handler: () => 1 });
    expect(() => d.registerTool({ name: 'query_x', description: 'd', handler: () => 1 })).toThrow(/already/);
    expect(() => d.registerOperation({ kind: 'query', id: 'x', description: 'd', handler: () => 1 })).toThrow(
      /already/,
    );
    expect(() => d.registerTool({ name: 'b', description: '', handler: () => 1 })).toThrow(/description/);
    expect(() =>
      d.registerTool({ name: 'c', description: 'd', inputSchema: { type: 'string' }, handler: () => 1 }),
    ).toThrow(/type "object"/);
    expect(() =>
      d.registerTool({
        name: 'e',
        description: 'd',
        inputSchema: { type: 'object', properties: { a: { type: 'nope' } } },
        handler: () => 1,
      }),
    ).toThrow(/valid JSON Schema/);
    expect(() =>
      d.registerTool({
        name: 'f',
        description: 'd',
        inputSchema: { type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' },
        handler: () => 1,
      }),
    ).toThrow(/unsupported \$schema/);
    expect(() =>
      d.registerOperation({ kind: 'nope' as 'query', id: 'y', description: 'd', handler: () => 1 }),
    ).toThrow(/kind/);
    expect(() =>
      d.registerOperation({ kind: 'query', id: 'a/b', description: 'd', handler: () => 1 }),
    ).toThrow(/id/);
  });

  it('accepts draft-07 schemas and validates with them', async () => {
    const d = new Dispatcher({ logger: quiet });
    d.registerTool({
      name: 'd7',
      description: 'd',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { n: { type: 'integer' } },
      },
      handler: () => 'ok',
    });
    const bad = await d.handle(rpc('tools/call', { name: 'd7', arguments: { n: 1.5 } }), makeContext());
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('argument `n` must be integer (type)');
  });

  it('reflects what is registered in capabilities()', () => {
    const d = new Dispatcher({ logger: quiet });
    expect(d.capabilities()).toEqual({});
    d.registerTool({ name: 'a', description: 'a', handler: () => 1 });
    expect(d.capabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    d.registerPrompt({ name: 'p', description: 'p', get: () => 'hi' });
    expect(d.capabilities()).toMatchObject({ prompts: { listChanged: true }, completions: {} });
    d.registerOperation({ kind: 'query', id: 'q', description: 'q', handler: () => 1 });
    expect(d.capabilities()).toMatchObject({ resources: { subscribe: true, listChanged: true } });
    const noSubscriptions = new Dispatcher({ logger: quiet, resourceSubscriptions: false });
    noSubscriptions.registerResource({ uri: 'x://a', name: 'a', read: () => 'a' });
    expect(noSubscriptions.capabilities()).toEqual({ resources: { listChanged: true }, logging: {} });
  });

  it('removes what it registered', async () => {
    const d = new Dispatcher({ logger: quiet });
    const remove = d.registerTool({ name: 'a', description: 'a', handler: () => 1 });
    d.registerTool({ name: 'b', description: 'b', handler: () => 1 });
    expect(remove()).toBe(true);
    expect(remove()).toBe(false);
    const list = await d.handle(rpc('tools/list'), makeContext());
    expect((list.tools as { name: string }[]).map((t) => t.name)).toEqual(['b']);
    const error = await errorOf(d.handle(rpc('tools/call', { name: 'a' }), makeContext()));
    expect(error.message).toBe('Unknown tool: a');
  });

  it('keeps registered schemas immune to later mutation by the caller', async () => {
    const d = new Dispatcher({ logger: quiet });
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    d.registerTool({ name: 'a', description: 'a', inputSchema: schema, handler: () => 1 });
    schema.properties.a.type = 'number';
    const list = await d.handle(rpc('tools/list'), makeContext());
    expect((list.tools as { inputSchema: unknown }[])[0]?.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });
});

describe('tools/call', () => {
  function dispatcher() {
    const errors: unknown[] = [];
    const d = new Dispatcher({ logger: { ...silentLogger, error: (_m, fields) => errors.push(fields) } });
    d.registerTool({
      name: 'add',
      description: 'adds',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' }, mode: { enum: ['int', 'float'] } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      handler: (args) => ({ sum: (args.a as number) + (args.b as number) }),
    });
    d.registerTool({ name: 'text', description: 'text', handler: () => 'plain text' });
    d.registerTool({ name: 'number', description: 'n', handler: () => 42 });
    d.registerTool({ name: 'nothing', description: 'n', handler: () => undefined });
    d.registerTool({ name: 'list', description: 'l', handler: () => [1, 2] });
    d.registerTool({
      name: 'fails',
      description: 'f',
      handler: () => {
        throw new Error('upstream API rate limit exceeded');
      },
    });
    d.registerTool({
      name: 'bug',
      description: 'b',
      handler: () => {
        const value = undefined as unknown as { x: number };
        return value.x;
      },
    });
    d.registerTool({
      name: 'wire',
      description: 'w',
      handler: () => {
        throw new WireError(-32099 + 100, 'deliberate');
      },
    });
    d.registerTool({
      name: 'typed',
      description: 't',
      outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      // @ts-expect-error the output type is inferred from outputSchema; this checks the runtime guard too
      handler: (args) => (args.good ? { n: 1 } : { n: 'one' }),
    });
    d.registerTool({
      name: 'typed-text',
      description: 't',
      outputSchema: { type: 'object' },
      // @ts-expect-error a string is not structured content
      handler: () => 'not structured',
    });
    d.registerTool({
      name: 'verbatim',
      description: 'v',
      handler: () => new ToolResult({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }),
    });
    return { d, errors };
  }

  it('answers unknown and hidden tools with identical bytes', async () => {
    const { d } = dispatcher();
    const hidden = new Dispatcher({ logger: quiet, filtersFor: () => ({ visible: { deny: ['secret'] } }) });
    hidden.registerTool({ name: 'secret', description: 's', handler: () => 's' });
    hidden.registerTool({ name: 'other', description: 'o', handler: () => 'o' });
    const missing = await errorOf(d.handle(rpc('tools/call', { name: 'secret' }), makeContext()));
    const denied = await errorOf(hidden.handle(rpc('tools/call', { name: 'secret' }), makeContext()));
    expect(JSON.stringify(denied.toJSON())).toBe(JSON.stringify(missing.toJSON()));
    expect(missing.toJSON()).toEqual({ code: -32602, message: 'Unknown tool: secret' });
  });

  it('answers params that fail the CallToolRequest shape with -32602', async () => {
    const { d } = dispatcher();
    for (const params of [
      {},
      { name: 7 },
      { name: '' },
      { name: 'add', arguments: [1] },
      { name: 'add', arguments: 'x' },
    ]) {
      const error = await errorOf(d.handle(rpc('tools/call', params), makeContext()));
      expect(error.code).toBe(ErrorCode.InvalidParams);
    }
  });

  it('returns isError naming the argument and the rule when arguments fail the schema', async () => {
    const { d } = dispatcher();
    const missing = await d.handle(rpc('tools/call', { name: 'add', arguments: { a: 1 } }), makeContext());
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('Invalid arguments: argument `b` is required (required)');
    const wrongType = await d.handle(
      rpc('tools/call', { name: 'add', arguments: { a: 1, b: 'x' } }),
      makeContext(),
    );
    expect(textOf(wrongType)).toBe('Invalid arguments: argument `b` must be number (type)');
    const extra = await d.handle(
      rpc('tools/call', { name: 'add', arguments: { a: 1, b: 2, c: 3 } }),
      makeContext(),
    );
    expect(textOf(extra)).toBe('Invalid arguments: argument `c` is not allowed (additionalProperties)');
    const badEnum = await d.handle(
      rpc('tools/call', { name: 'add', arguments: { a: 1, b: 2, mode: 'x' } }),
      makeContext(),
    );
    expect(textOf(badEnum)).toBe('Invalid arguments: argument `mode` must be one of "int", "float" (enum)');
  });

  it('turns a returned object into structuredContent plus its JSON as text', async () => {
    const { d } = dispatcher();
    const result = await d.handle(
      rpc('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }),
      makeContext(),
    );
    expect(result).toEqual({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } });
  });

  it('shapes strings, numbers, undefined, arrays and verbatim results', async () => {
    const { d } = dispatcher();
    expect(await d.handle(rpc('tools/call', { name: 'text' }), makeContext())).toEqual({
      content: [{ type: 'text', text: 'plain text' }],
    });
    expect(textOf(await d.handle(rpc('tools/call', { name: 'number' }), makeContext()))).toBe('42');
    expect(await d.handle(rpc('tools/call', { name: 'nothing' }), makeContext())).toEqual({ content: [] });
    // legacy structuredContent must be an object; 2026 allows any JSON value
    expect(await d.handle(rpc('tools/call', { name: 'list' }), makeContext())).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
    });
    expect(await d.handle(rpc('tools/call', { name: 'list' }), makeContext({ era: 'modern' }))).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
      structuredContent: [1, 2],
    });
    expect(await d.handle(rpc('tools/call', { name: 'verbatim' }), makeContext())).toEqual({
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    });
  });

  it('returns a thrown error as isError with its message', async () => {
    const { d } = dispatcher();
    const result = await d.handle(rpc('tools/call', { name: 'fails' }), makeContext());
    expect(result).toEqual({
      content: [{ type: 'text', text: 'upstream API rate limit exceeded' }],
      isError: true,
    });
  });

  it('hides internal errors behind a generic text and logs the details', async () => {
    const { d, errors } = dispatcher();
    const result = await d.handle(rpc('tools/call', { name: 'bug' }), makeContext());
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Internal error while running the tool' }],
      isError: true,
    });
    expect(JSON.stringify(errors)).toContain('TypeError');
  });

  it('lets a deliberate WireError through as a protocol error', async () => {
    const { d } = dispatcher();
    const error = await errorOf(d.handle(rpc('tools/call', { name: 'wire' }), makeContext()));
    expect(error.message).toBe('deliberate');
  });

  it('enforces outputSchema', async () => {
    const { d } = dispatcher();
    const good = await d.handle(
      rpc('tools/call', { name: 'typed', arguments: { good: true } }),
      makeContext(),
    );
    expect(good.structuredContent).toEqual({ n: 1 });
    const bad = await d.handle(rpc('tools/call', { name: 'typed' }), makeContext());
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('does not match its outputSchema');
    expect(bad).not.toHaveProperty('structuredContent');
    const text = await d.handle(rpc('tools/call', { name: 'typed-text' }), makeContext());
    expect(text.isError).toBe(true);
    expect(textOf(text)).toContain('no structured content');
  });

  it('leaves the envelope (resultType) to the server core and adds no cache fields to modern tool results', async () => {
    const { d } = dispatcher();
    const result = await d.handle(rpc('tools/call', { name: 'text' }), makeContext({ era: 'modern' }));
    expect(result.resultType).toBeUndefined();
    expect(result).not.toHaveProperty('ttlMs');
  });

  it('checks required client capabilities before running the handler', async () => {
    const d = new Dispatcher({ logger: quiet });
    let ran = 0;
    d.registerTool({
      name: 'needs-sampling',
      description: 'n',
      requiredClientCapabilities: { sampling: {} },
      handler: () => {
        ran++;
        return 'ok';
      },
    });
    const error = await errorOf(
      d.handle(rpc('tools/call', { name: 'needs-sampling' }), makeContext({ era: 'modern' })),
    );
    expect(error.code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    const legacy = await d.handle(rpc('tools/call', { name: 'needs-sampling' }), makeContext());
    expect(legacy.isError).toBe(true);
    expect(ran).toBe(0);
    const ok = await d.handle(
      rpc('tools/call', { name: 'needs-sampling' }),
      makeContext({ era: 'modern', capabilities: { sampling: {} } }),
    );
    expect(textOf(ok)).toBe('ok');
  });

  it('passes the request signal to the handler', async () => {
    const d = new Dispatcher({ logger: quiet });
    const controller = new AbortController();
    d.registerTool({
      name: 'wait',
      description: 'w',
      handler: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('cancelled by the client')));
        }),
    });
    const pending = d.handle(rpc('tools/call', { name: 'wait' }), makeContext({ signal: controller.signal }));
    controller.abort();
    expect(textOf(await pending)).toBe('cancelled by the client');
  });
});
