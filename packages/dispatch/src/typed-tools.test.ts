/** Typed tools with real zod 4, ArkType 2 and Valibot 1: publication, validation, transforms, refusals. */
import { LocalError, silentLogger } from '@agentd/rpc-frame';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { Dispatcher } from './dispatcher.js';
import type { StandardToolSchema } from './standard-schema.js';
import { createTestClient, type TestClient } from './testing.js';
import { ToolResult, toolError } from './tool-result.js';

const quiet = silentLogger;
const TARGET = { target: 'draft-2020-12' } as const;
let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(dispatcher: Dispatcher, era: 'legacy' | 'modern' = 'modern'): Promise<TestClient> {
  client = await createTestClient(dispatcher, { era });
  return client;
}

function text(result: Record<string, unknown>): string {
  return ((result.content as { text?: string }[])[0]?.text ?? '') as string;
}

/** The same tool in each library: `count` must be a positive integer, `name` is trimmed and upper-cased. */
const libraries: [string, StandardToolSchema, StandardToolSchema][] = [
  [
    'zod',
    z.object({
      count: z.number().int().positive(),
      name: z.string().transform((s) => s.trim().toUpperCase()),
    }),
    z.object({ total: z.number().max(100) }),
  ],
  [
    'arktype',
    type({ count: 'number.integer > 0', name: type('string').pipe((s) => s.trim().toUpperCase()) }),
    type({ total: 'number <= 100' }),
  ],
  [
    'valibot',
    toStandardJsonSchema(
      v.object({
        count: v.pipe(v.number(), v.integer(), v.minValue(1)),
        name: v.pipe(
          v.string(),
          v.transform((s) => s.trim().toUpperCase()),
        ),
      }),
    ),
    toStandardJsonSchema(v.object({ total: v.pipe(v.number(), v.maxValue(100)) })),
  ],
];

describe.each(libraries)('%s', (_library, input, output) => {
  function register(): { dispatcher: Dispatcher; calls: unknown[] } {
    const dispatcher = new Dispatcher({ logger: quiet });
    const calls: unknown[] = [];
    dispatcher.registerTool({
      name: 'repeat',
      description: 'repeats a name',
      inputSchema: input,
      outputSchema: output,
      handler: (args) => {
        calls.push(args);
        const { count } = args as { count: number };
        return { total: count * 10 };
      },
    });
    return { dispatcher, calls };
  }

  it("publishes the library's own JSON Schema for input and output", async () => {
    const { dispatcher } = register();
    const [tool] = await (await connect(dispatcher)).listTools();
    expect(tool?.inputSchema).toEqual(input['~standard'].jsonSchema.input(TARGET));
    expect(tool?.outputSchema).toEqual(output['~standard'].jsonSchema.output(TARGET));
    expect(JSON.stringify(tool)).not.toContain('~standard');
  });

  it('validates with the library and hands the transformed output to the handler', async () => {
    const { dispatcher, calls } = register();
    const c = await connect(dispatcher);
    const result = await c.callTool('repeat', { count: 3, name: '  ada ' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ total: 30 });
    expect(calls).toEqual([{ count: 3, name: 'ADA' }]);
  });

  it('a refinement failure is an isError result and the handler is not called', async () => {
    const { dispatcher, calls } = register();
    for (const era of ['modern', 'legacy'] as const) {
      const c = await connect(dispatcher, era);
      const result = await c.callTool('repeat', { count: -2, name: 'x' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Invalid arguments: argument `count`: /);
      const wrongType = await c.callTool('repeat', { count: 'three', name: 'x' });
      expect(wrongType.isError).toBe(true);
      await c.close();
      client = undefined;
    }
    expect(calls).toEqual([]);
  });

  it('checks structuredContent against the outputSchema', async () => {
    const dispatcher = new Dispatcher({ logger: quiet });
    dispatcher.registerTool({
      name: 'big',
      description: 'returns too much',
      outputSchema: output,
      handler: () => ({ total: 1000 }),
    });
    const result = await (await connect(dispatcher)).callTool('big', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Tool big returned output that does not match its outputSchema: field `total`: /,
    );
  });

  it('works as an operation argument schema (classic tool and operation index)', async () => {
    const dispatcher = new Dispatcher({ logger: quiet });
    dispatcher.registerOperation({
      kind: 'query',
      id: 'repeat',
      description: 'repeats',
      args: input,
      handler: (args) => args,
    });
    expect(dispatcher.operationIndex()[0]?.args.map((a) => [a.name, a.tsType])).toEqual([
      ['count', 'number'],
      ['name', 'string'],
    ]);
    const c = await connect(dispatcher);
    const ok = await c.callTool('query_repeat', { count: 1, name: 'bo' });
    expect(ok.structuredContent).toEqual({ count: 1, name: 'BO' });
    expect((await c.callTool('query_repeat', { count: 0, name: 'bo' })).isError).toBe(true);
  });
});

it('a draft-07 JSON Schema literal is published as written and validated by ajv', async () => {
  const dispatcher = new Dispatcher({ logger: quiet });
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { when: { type: 'string', format: 'date-time' } },
    required: ['when'],
  } as const;
  dispatcher.registerTool({ name: 'at', description: 'd', inputSchema: schema, handler: ({ when }) => when });
  const c = await connect(dispatcher);
  expect((await c.listTools())[0]?.inputSchema).toEqual(schema);
  expect(text(await c.callTool('at', { when: '2026-12-01T10:00:00Z' }))).toBe('2026-12-01T10:00:00Z');
  const refused = await c.callTool('at', { when: 'yesterday' });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/argument `when` must match format "date-time"/);
});

describe('what is refused at registration', () => {
  const dispatcher = new Dispatcher({ logger: quiet });
  const register = (inputSchema: unknown, outputSchema?: unknown) =>
    dispatcher.registerTool({
      name: 'bad',
      description: 'bad',
      inputSchema: inputSchema as never,
      ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as never }),
      handler: () => 'never',
    });

  it('a Standard Schema without a JSON Schema converter says how to fix it', () => {
    for (const schema of [v.object({ a: v.string() }), z3.object({ a: z3.string() })]) {
      expect(() => register(schema)).toThrow(LocalError);
      expect(() => register(schema)).toThrow(
        /tool bad: inputSchema is a Standard Schema \(vendor (valibot|zod)\) without a JSON Schema converter/,
      );
      expect(() => register(schema)).toThrow(/toStandardJsonSchema\(\) from @valibot\/to-json-schema/);
    }
  });

  it('class instances, functions and other non-JSON values name the tool and the problem', () => {
    expect(() => register(new Map())).toThrow(
      /tool bad: inputSchema is not a JSON Schema: it is a Map instance/,
    );
    expect(() => register({ type: 'object', properties: { a: { default: () => 1 } } })).toThrow(
      /tool bad: inputSchema is not a JSON Schema: properties\.a\.default is a function/,
    );
    expect(() => register({ type: 'object' }, new Date())).toThrow(
      /tool bad: outputSchema is not a JSON Schema/,
    );
    expect(() => register(z.string())).toThrow(/tool bad: inputSchema must have type "object"/);
    expect(() => register(z.object({ when: z.date() }))).toThrow(
      /tool bad: inputSchema: zod cannot express this schema as JSON Schema/,
    );
    expect(() => register(z.object({}), z.object({ n: z.string().transform(Number) }))).toThrow(
      /tool bad: outputSchema: zod cannot express this schema as JSON Schema/,
    );
    expect(dispatcher.hasTool('bad')).toBe(false);
  });
});

describe('Standard Schema validation details', () => {
  it('awaits an async validate (zod async refinement)', async () => {
    const dispatcher = new Dispatcher({ logger: quiet });
    const taken = new Set(['root']);
    dispatcher.registerTool({
      name: 'signup',
      description: 'claims a user name',
      inputSchema: z
        .object({ user: z.string() })
        .refine(async ({ user }) => !taken.has(user), 'user name is taken'),
      handler: ({ user }) => `welcome ${user}`,
    });
    const c = await connect(dispatcher);
    expect(text(await c.callTool('signup', { user: 'ada' }))).toBe('welcome ada');
    const refused = await c.callTool('signup', { user: 'root' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('Invalid arguments: arguments: user name is taken (custom)');
  });

  it('prompt argsSchema: published argument list, validation and transforms', async () => {
    const dispatcher = new Dispatcher({ logger: quiet });
    dispatcher.registerPrompt({
      name: 'review',
      description: 'reviews code',
      argsSchema: z.object({
        language: z.enum(['ts', 'rust']).describe('the language'),
        focus: z.string().optional(),
      }),
      complete: { language: (prefix) => ['ts', 'rust'].filter((l) => l.startsWith(prefix)) },
      get: ({ language, focus }) => `Review this ${language} code${focus ? ` for ${focus}` : ''}`,
    });
    const c = await connect(dispatcher);
    const listed = await c.request('prompts/list');
    expect(listed.prompts).toEqual([
      {
        name: 'review',
        description: 'reviews code',
        arguments: [{ name: 'language', description: 'the language', required: true }, { name: 'focus' }],
      },
    ]);
    const got = await c.getPrompt('review', { language: 'rust', focus: 'safety' });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review this rust code for safety' } },
    ]);
    await expect(c.getPrompt('review', { language: 'cobol' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid arguments: argument `language`: /),
    });
    const completion = await c.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'language', value: 'r' },
    });
    expect((completion.completion as { values: string[] }).values).toEqual(['rust']);
    expect(() =>
      dispatcher.registerPrompt({
        name: 'both',
        description: 'd',
        arguments: [{ name: 'a' }],
        argsSchema: z.object({ a: z.string() }),
        get: () => 'x',
      }),
    ).toThrow(/give either arguments or argsSchema/);
  });
});

describe('error results for code ported from the SDK', () => {
  it('an SDK-style { content, isError: true } stays an error; toolError and ToolResult too', async () => {
    const dispatcher = new Dispatcher({ logger: quiet });
    dispatcher.registerTool({
      name: 'sdk-style',
      description: 'd',
      handler: () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }),
    });
    dispatcher.registerTool({ name: 'helper', description: 'd', handler: () => toolError('disk full') });
    dispatcher.registerTool({
      name: 'sdk-ok',
      description: 'd',
      outputSchema: z.object({ free: z.number() }),
      handler: () => ({ content: [{ type: 'text', text: '12 GB free' }], structuredContent: { free: 12 } }),
    });
    dispatcher.registerTool({
      name: 'data',
      description: 'an object that merely has a content key is data',
      handler: () => ({ content: [{ type: 'text', text: 'x' }], author: 'ada' }),
    });
    for (const era of ['modern', 'legacy'] as const) {
      const c = await connect(dispatcher, era);
      for (const name of ['sdk-style', 'helper']) {
        const result = await c.callTool(name);
        expect(result).toMatchObject({ content: [{ type: 'text', text: 'disk full' }], isError: true });
        expect(result.structuredContent).toBeUndefined();
      }
      expect(await c.callTool('sdk-ok')).toMatchObject({
        content: [{ type: 'text', text: '12 GB free' }],
        structuredContent: { free: 12 },
      });
      const data = await c.callTool('data');
      expect(data.isError).toBeUndefined();
      expect(data.structuredContent).toEqual({ content: [{ type: 'text', text: 'x' }], author: 'ada' });
      await c.close();
      client = undefined;
    }
    expect(new ToolResult({ content: [] }).result).toEqual({ content: [] });
  });
});

describe('tools/list paging', () => {
  function catalogue(size: number, pageSize?: number): Dispatcher {
    const dispatcher = new Dispatcher({ logger: quiet, ...(pageSize === undefined ? {} : { pageSize }) });
    for (let i = 0; i < size; i += 1) {
      dispatcher.registerTool({
        name: `tool_${String(i).padStart(4, '0')}`,
        description: 'd',
        handler: () => 'ok',
      });
    }
    return dispatcher;
  }

  it('a client that never follows nextCursor sees all 320 tools by default', async () => {
    const c = await connect(catalogue(320));
    const page = await c.request('tools/list');
    expect((page.tools as unknown[]).length).toBe(320);
    expect(page.nextCursor).toBeUndefined();
  });

  it('pages past the default bound and with an explicit pageSize, every tool exactly once', async () => {
    const c = await connect(catalogue(1001));
    const first = await c.request('tools/list');
    expect((first.tools as unknown[]).length).toBe(1000);
    expect(typeof first.nextCursor).toBe('string');
    const second = await c.request('tools/list', { cursor: first.nextCursor as string });
    expect((second.tools as { name: string }[]).map((t) => t.name)).toEqual(['tool_1000']);
    expect(second.nextCursor).toBeUndefined();
    await c.close();
    const small = await connect(catalogue(25, 10));
    const names = (await small.listTools()).map((t) => t.name);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `tool_${String(i).padStart(4, '0')}`));
  });
});
