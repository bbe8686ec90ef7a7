/** resources/*, prompts/* and completion/complete: listing, reading, templates, not-found codes, per-peer hiding. */
import { ErrorCode } from '@agentd/lifecycle';
import { type JsonObject, silentLogger, WireError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { asWireError, makeContext, peer, resolvedUnexpectedly, rpc } from './test-support/request-context.js';

const quiet = silentLogger;

function dispatcher(options: ConstructorParameters<typeof Dispatcher>[0] = {}) {
  const d = new Dispatcher({ logger: quiet, ...options });
  d.registerResource({
    uri: 'test://static-text',
    name: 'static',
    mimeType: 'text/plain',
    read: () => 'hello',
  });
  d.registerResource({
    uri: 'test://static-binary',
    name: 'bin',
    mimeType: 'image/png',
    read: () => new Uint8Array([1, 2, 3]),
  });
  d.registerResource({
    uri: 'agent://config/effective',
    name: 'config',
    read: () => ({ text: '{}', mimeType: 'application/json' }),
  });
  d.registerResource({ uri: 'test://empty', name: 'empty', read: () => [] });
  d.registerResource({ uri: 'test://gone', name: 'gone', read: () => undefined });
  d.registerResource({
    uri: 'test://cached',
    name: 'cached',
    cache: { ttlMs: 5000, cacheScope: 'public' },
    read: () => 'c',
  });
  d.registerResource({
    uri: 'test://broken',
    name: 'broken',
    read: () => {
      throw new Error('disk on fire');
    },
  });
  d.registerResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'data',
    mimeType: 'application/json',
    complete: { id: (value) => ['123', '124', '200'].filter((v) => v.startsWith(value)) },
    read: (_uri, vars) =>
      vars.id === 'missing' ? null : JSON.stringify({ id: vars.id, templateTest: true }),
  });
  d.registerOperation({
    kind: 'query',
    id: 'servers',
    description: 'list servers',
    args: { type: 'object', properties: { up: { type: 'boolean' } } },
    handler: () => [],
  });
  d.registerOperation({ kind: 'command', id: 'drain', description: 'drain', handler: () => 'ok' });
  return d;
}

async function uris(d: Dispatcher, context = makeContext()): Promise<string[]> {
  const result = await d.handle(rpc('resources/list'), context);
  return (result.resources as { uri: string }[]).map((r) => r.uri);
}

describe('resources/list and templates/list', () => {
  it('lists static and schema resources sorted by URI', async () => {
    expect(await uris(dispatcher())).toEqual([
      'agent://config/effective',
      'mcp://schema/command/drain',
      'mcp://schema/query/servers',
      'test://broken',
      'test://cached',
      'test://empty',
      'test://gone',
      'test://static-binary',
      'test://static-text',
    ]);
  });

  it('lists templates, with cache fields in the modern era', async () => {
    const result = await dispatcher().handle(rpc('resources/templates/list'), makeContext({ era: 'modern' }));
    expect(result).toEqual({
      resourceTemplates: [
        { uriTemplate: 'test://template/{id}/data', name: 'data', mimeType: 'application/json' },
      ],
      ttlMs: 10_000,
      cacheScope: 'public',
    });
  });

  it('hides resources and schema resources the peer may not see', async () => {
    const d = dispatcher({
      filtersFor: (p) =>
        p.origin === 'stdio'
          ? { visible: { deny: ['command_*'] }, resources: { deny: ['agent://config/*'] } }
          : undefined,
    });
    const stdio = makeContext({ peer: { origin: 'stdio' } });
    const listed = await uris(d, stdio);
    expect(listed).not.toContain('agent://config/effective');
    expect(listed).not.toContain('mcp://schema/command/drain');
    expect(listed).toContain('mcp://schema/query/servers');
    for (const uri of ['agent://config/effective', 'mcp://schema/command/drain']) {
      const hidden = await d
        .handle(rpc('resources/read', { uri }), stdio)
        .then(resolvedUnexpectedly, asWireError);
      const missing = await d
        .handle(rpc('resources/read', { uri: 'test://nope' }), stdio)
        .then(resolvedUnexpectedly, asWireError);
      expect(hidden).toBeInstanceOf(WireError);
      expect({ ...hidden.toJSON(), data: undefined }).toEqual({ ...missing.toJSON(), data: undefined });
      expect(d.canSubscribe(uri, peer({ origin: 'stdio' }))).toBe(false);
      expect(d.canSubscribe(uri, peer())).toBe(true);
    }
  });
});

describe('resources/read', () => {
  it('reads text, blobs and contents objects with the resource mimeType', async () => {
    const d = dispatcher();
    expect(await d.handle(rpc('resources/read', { uri: 'test://static-text' }), makeContext())).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'hello' }],
    });
    expect(await d.handle(rpc('resources/read', { uri: 'test://static-binary' }), makeContext())).toEqual({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: 'AQID' }],
    });
    expect(await d.handle(rpc('resources/read', { uri: 'agent://config/effective' }), makeContext())).toEqual(
      {
        contents: [{ uri: 'agent://config/effective', mimeType: 'application/json', text: '{}' }],
      },
    );
  });

  it('reads through templates', async () => {
    const result = await dispatcher().handle(
      rpc('resources/read', { uri: 'test://template/123/data' }),
      makeContext(),
    );
    expect(result).toEqual({
      contents: [
        {
          uri: 'test://template/123/data',
          mimeType: 'application/json',
          text: '{"id":"123","templateTest":true}',
        },
      ],
    });
  });

  it('serves the JSON Schema of an operation as its schema resource', async () => {
    const result = await dispatcher().handle(
      rpc('resources/read', { uri: 'mcp://schema/query/servers' }),
      makeContext(),
    );
    const contents = result.contents as JsonObject[];
    expect(JSON.parse(contents[0]?.text as string)).toEqual({
      type: 'object',
      properties: { up: { type: 'boolean' } },
    });
  });

  it('answers not found with -32002 (legacy) / -32602 (modern) and data.uri, never empty contents', async () => {
    const d = dispatcher();
    for (const uri of [
      'test://nope',
      'test://empty',
      'test://gone',
      'test://template/missing/data',
      'mcp://schema/query/nope',
    ]) {
      const legacy = await d
        .handle(rpc('resources/read', { uri }), makeContext())
        .then(resolvedUnexpectedly, asWireError);
      expect(legacy.toJSON()).toEqual({
        code: ErrorCode.ResourceNotFound,
        message: 'Resource not found',
        data: { uri },
      });
      const modern = await d
        .handle(rpc('resources/read', { uri }), makeContext({ era: 'modern' }))
        .then(resolvedUnexpectedly, asWireError);
      expect(modern.toJSON()).toEqual({
        code: ErrorCode.InvalidParams,
        message: 'Resource not found',
        data: { uri },
      });
    }
  });

  it('adds read cache hints in the modern era (per-resource overrides)', async () => {
    const d = dispatcher();
    const plain = await d.handle(
      rpc('resources/read', { uri: 'test://static-text' }),
      makeContext({ era: 'modern' }),
    );
    expect(plain).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
    const cached = await d.handle(
      rpc('resources/read', { uri: 'test://cached' }),
      makeContext({ era: 'modern' }),
    );
    expect(cached).toMatchObject({ ttlMs: 5000, cacheScope: 'public' });
  });

  it('turns a failing read into -32603 with a generic message', async () => {
    const error = await dispatcher()
      .handle(rpc('resources/read', { uri: 'test://broken' }), makeContext())
      .then(resolvedUnexpectedly, asWireError);
    expect(error.toJSON()).toEqual({ code: ErrorCode.InternalError, message: 'Internal error' });
  });

  it('rejects a missing uri with -32602', async () => {
    const error = await dispatcher()
      .handle(rpc('resources/read', {}), makeContext())
      .then(resolvedUnexpectedly, asWireError);
    expect(error.code).toBe(ErrorCode.InvalidParams);
  });

  it('uses a configurable schema scheme, or none', async () => {
    expect(await uris(dispatcher({ schemaScheme: 'acme' }))).toContain('acme://schema/query/servers');
    expect((await uris(dispatcher({ schemaScheme: false }))).some((u) => u.includes('://schema/'))).toBe(
      false,
    );
  });
});

describe('prompts', () => {
  function prompts() {
    const d = new Dispatcher({ logger: quiet });
    d.registerPrompt({
      name: 'simple',
      description: 'simple',
      get: () => 'This is a simple prompt for testing.',
    });
    d.registerPrompt({
      name: 'with_args',
      description: 'args',
      arguments: [
        {
          name: 'arg1',
          required: true,
          complete: (value) => ['hello', 'help', 'world'].filter((v) => v.startsWith(value)),
        },
        { name: 'arg2', required: true },
      ],
      get: (args) => ({
        description: 'with arguments',
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
            },
          },
        ],
      }),
    });
    d.registerResourceTemplate({
      uriTemplate: 'x://{a}/{b}',
      name: 't',
      complete: { b: (_value, ctx) => [`${ctx.arguments.a ?? '?'}-1`] },
      read: () => 'x',
    });
    return d;
  }

  it('lists and gets prompts', async () => {
    const d = prompts();
    const list = await d.handle(rpc('prompts/list'), makeContext({ era: 'modern' }));
    expect((list.prompts as JsonObject[]).map((p) => p.name)).toEqual(['simple', 'with_args']);
    expect(list).toMatchObject({ ttlMs: 10_000, cacheScope: 'public' });
    expect((list.prompts as JsonObject[])[1]?.arguments).toEqual([
      { name: 'arg1', required: true },
      { name: 'arg2', required: true },
    ]);
    expect(await d.handle(rpc('prompts/get', { name: 'simple' }), makeContext())).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
    const withArgs = await d.handle(
      rpc('prompts/get', { name: 'with_args', arguments: { arg1: 'hello', arg2: 'world' } }),
      makeContext(),
    );
    expect(withArgs).toMatchObject({ description: 'with arguments' });
    expect(JSON.stringify(withArgs)).toContain("arg1='hello', arg2='world'");
  });

  it('answers unknown prompts and missing or non-string arguments with -32602', async () => {
    const d = prompts();
    const cases = [
      { name: 'nope' },
      { name: 'with_args', arguments: { arg1: 'x' } },
      { name: 'with_args', arguments: { arg1: 1, arg2: 'y' } },
      { name: 5 },
    ];
    for (const params of cases) {
      const error = await d
        .handle(rpc('prompts/get', params), makeContext())
        .then(resolvedUnexpectedly, asWireError);
      expect(error.code).toBe(ErrorCode.InvalidParams);
    }
  });

  it('completes prompt arguments and template variables', async () => {
    const d = prompts();
    const prompt = await d.handle(
      rpc('completion/complete', {
        ref: { type: 'ref/prompt', name: 'with_args' },
        argument: { name: 'arg1', value: 'hel' },
      }),
      makeContext({ era: 'modern' }),
    );
    expect(prompt).toEqual({ completion: { values: ['hello', 'help'] } });
    const none = await d.handle(
      rpc('completion/complete', {
        ref: { type: 'ref/prompt', name: 'with_args' },
        argument: { name: 'arg2', value: '' },
      }),
      makeContext(),
    );
    expect(none).toEqual({ completion: { values: [] } });
    const template = await d.handle(
      rpc('completion/complete', {
        ref: { type: 'ref/resource', uri: 'x://{a}/{b}' },
        argument: { name: 'b', value: '' },
        context: { arguments: { a: 'zz' } },
      }),
      makeContext(),
    );
    expect(template).toEqual({ completion: { values: ['zz-1'] } });
  });

  it('hides prompts and templates per peer exactly like missing ones', async () => {
    const d = new Dispatcher({
      logger: quiet,
      filtersFor: (p) =>
        p.origin === 'stdio'
          ? { prompts: { deny: ['secret_*'] }, resources: { deny: ['x://private/*'] } }
          : undefined,
    });
    d.registerPrompt({
      name: 'secret_plan',
      description: 's',
      arguments: [{ name: 'a', complete: () => ['x'] }],
      get: () => 'plan',
    });
    d.registerPrompt({ name: 'open', description: 'o', get: () => 'open' });
    d.registerResourceTemplate({ uriTemplate: 'x://private/{id}', name: 'p', read: () => 'private' });
    const stdio = () => makeContext({ peer: { origin: 'stdio' } });
    const list = await d.handle(rpc('prompts/list'), stdio());
    expect((list.prompts as JsonObject[]).map((p) => p.name)).toEqual(['open']);
    const hidden = await d
      .handle(rpc('prompts/get', { name: 'secret_plan' }), stdio())
      .then(resolvedUnexpectedly, asWireError);
    const missing = await d
      .handle(rpc('prompts/get', { name: 'secret_plaN' }), stdio())
      .then(resolvedUnexpectedly, asWireError);
    expect(hidden.toJSON()).toEqual({ code: -32602, message: 'Unknown prompt: secret_plan' });
    expect(missing.toJSON()).toEqual({ code: -32602, message: 'Unknown prompt: secret_plaN' });
    const completion = await d
      .handle(
        rpc('completion/complete', {
          ref: { type: 'ref/prompt', name: 'secret_plan' },
          argument: { name: 'a', value: '' },
        }),
        stdio(),
      )
      .then(resolvedUnexpectedly, asWireError);
    expect(completion.message).toBe('Unknown prompt: secret_plan');
    const templates = await d.handle(rpc('resources/templates/list'), stdio());
    expect(templates.resourceTemplates).toEqual([]);
    const read = await d
      .handle(rpc('resources/read', { uri: 'x://private/1' }), stdio())
      .then(resolvedUnexpectedly, asWireError);
    expect(read.toJSON()).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'x://private/1' },
    });
    expect(await d.handle(rpc('prompts/get', { name: 'secret_plan' }), makeContext())).toMatchObject({
      messages: [{ role: 'user' }],
    });
  });

  it('caps completions at 100 values with hasMore and total', async () => {
    const d = prompts();
    d.registerCompletion({ type: 'ref/prompt', name: 'simple' }, 'x', () =>
      Array.from({ length: 150 }, (_, i) => `v${i}`),
    );
    const result = await d.handle(
      rpc('completion/complete', {
        ref: { type: 'ref/prompt', name: 'simple' },
        argument: { name: 'x', value: '' },
      }),
      makeContext(),
    );
    const completion = result.completion as { values: string[]; total: number; hasMore: boolean };
    expect(completion.values).toHaveLength(100);
    expect(completion).toMatchObject({ total: 150, hasMore: true });
  });

  it('rejects completion requests for unknown refs or malformed params with -32602', async () => {
    const d = prompts();
    for (const params of [
      { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } },
      { ref: { type: 'ref/resource', uri: 'x://nope' }, argument: { name: 'a', value: '' } },
      { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } },
      { ref: { type: 'ref/prompt', name: 'simple' } },
    ]) {
      const error = await d
        .handle(rpc('completion/complete', params), makeContext())
        .then(resolvedUnexpectedly, asWireError);
      expect(error.code).toBe(ErrorCode.InvalidParams);
    }
  });
});
