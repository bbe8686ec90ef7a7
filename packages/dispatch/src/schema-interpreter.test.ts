/**
 * The interpreting validator (no code generation, for Cloudflare Workers) behind a real
 * Dispatcher: it accepts what the schema accepts, and its isError texts match the compiled path's.
 */
import { silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import type { SchemaValidation } from './schema-compiler.js';
import { makeContext, rpc } from './test-support/request-context.js';

const quiet = silentLogger;

const USER = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'integer' } },
    color: { enum: ['red', 'blue'] },
    address: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  required: ['name'],
  additionalProperties: false,
} as const;

function withTool(validation: SchemaValidation, inputSchema: Record<string, unknown>): Dispatcher {
  const d = new Dispatcher({ schemaValidation: validation, logger: quiet });
  d.registerTool({ name: 'save', description: 'Saves', inputSchema, handler: () => 'saved' });
  return d;
}

async function call(d: Dispatcher, args: unknown): Promise<{ isError: boolean; text: string }> {
  const result = await d.handle(rpc('tools/call', { name: 'save', arguments: args }), makeContext());
  const text = (result.content as { text: string }[])[0]?.text ?? '';
  return { isError: result.isError === true, text };
}

describe('interpreted schema validation', () => {
  it('accepts valid arguments and runs the handler', async () => {
    const d = withTool('interpreted', USER);
    const args = {
      name: 'Ada',
      email: 'ada@example.com',
      tags: [1, 2],
      color: 'red',
      address: { city: 'Oslo' },
    };
    expect(await call(d, args)).toEqual({ isError: false, text: 'saved' });
  });

  const failures: [string, Record<string, unknown>, string][] = [
    ['a missing argument', {}, 'Invalid arguments: argument `name` is required (required)'],
    ['a wrong type', { name: 7 }, 'Invalid arguments: argument `name` must be string (type)'],
    [
      'an unknown argument',
      { name: 'Ada', extra: 1 },
      'Invalid arguments: argument `extra` is not allowed (additionalProperties)',
    ],
    [
      'a value outside the enum',
      { name: 'Ada', color: 'green' },
      'Invalid arguments: argument `color` must be one of "red", "blue" (enum)',
    ],
    [
      'a bad email format',
      { name: 'Ada', email: 'not-an-email' },
      'Invalid arguments: argument `email` must match format "email" (format)',
    ],
    [
      'a wrong item type',
      { name: 'Ada', tags: [1, 'x'] },
      'Invalid arguments: argument `tags[1]` must be integer (type)',
    ],
    [
      'nested required and unknown',
      { name: 'Ada', address: { town: 'Oslo' } },
      'Invalid arguments: argument `address.city` is required (required); argument `address.town` is not allowed (additionalProperties)',
    ],
  ];
  for (const [what, args, text] of failures) {
    it(`reports ${what} as isError with the same text as the compiled path`, async () => {
      const interpreted = await call(withTool('interpreted', USER), args);
      expect(interpreted).toEqual({ isError: true, text });
      expect(await call(withTool('compiled', USER), args)).toEqual(interpreted);
    });
  }

  it('names the rule for keywords without a dedicated text', async () => {
    const result = await call(withTool('interpreted', USER), { name: 'A' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Invalid arguments: argument `name` .*too short.* \(minLength\)$/);
  });

  it('reports every failure at once', async () => {
    const result = await call(withTool('interpreted', USER), { email: 'x', color: 'green' });
    expect(result.text).toContain('argument `name` is required (required)');
    expect(result.text).toContain('argument `email` must match format "email" (format)');
    expect(result.text).toContain('argument `color` must be one of "red", "blue" (enum)');
  });

  it('follows draft-07 rules when the schema declares draft-07', async () => {
    // Array-form `items` is a tuple in draft-07 (2020-12 spells it prefixItems).
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
      definitions: { positive: { type: 'number', exclusiveMinimum: 0 } },
      required: ['pair'],
    };
    const d = withTool('interpreted', {
      ...schema,
      properties: { ...schema.properties, n: { $ref: '#/definitions/positive' } },
    });
    expect(await call(d, { pair: ['a', 1], n: 3 })).toEqual({ isError: false, text: 'saved' });
    expect(await call(d, { pair: ['a', 'b'] })).toEqual({
      isError: true,
      text: 'Invalid arguments: argument `pair[1]` must be number (type)',
    });
    const negative = await call(d, { pair: ['a', 1], n: -1 });
    expect(negative.isError).toBe(true);
    expect(negative.text).toMatch(/^Invalid arguments: argument `n` .*\(exclusiveMinimum\)$/);
  });

  it('follows 2020-12 rules by default and when declared', async () => {
    for (const dialect of [{}, { $schema: 'https://json-schema.org/draft/2020-12/schema' }]) {
      const d = withTool('interpreted', {
        ...dialect,
        type: 'object',
        properties: {
          point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
          id: { $ref: '#/$defs/id' },
        },
        $defs: { id: { type: 'string', format: 'uuid' } },
      });
      expect(await call(d, { point: [1, 2], id: '0b4e7c1a-5f3d-4c2e-9a8b-1d2e3f4a5b6c' })).toEqual({
        isError: false,
        text: 'saved',
      });
      const tooLong = await call(d, { point: [1, 2, 3] });
      expect(tooLong).toEqual({
        isError: true,
        text: 'Invalid arguments: argument `point[2]` is not allowed (false schema)',
      });
      expect(await call(d, { id: 'nope' })).toEqual({
        isError: true,
        text: 'Invalid arguments: argument `id` must match format "uuid" (format)',
      });
    }
  });

  it('rejects an unsupported $schema at registration, as the compiled path does', () => {
    for (const validation of ['interpreted', 'compiled'] as const) {
      expect(() =>
        withTool(validation, { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }),
      ).toThrow(/unsupported \$schema/);
    }
  });

  it('rejects malformed schemas at registration without compiling them', async () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ type: 'object', properties: { a: { type: 'strin' } } }, /properties\/a\/type must be one of/],
      [{ type: 'object', required: 'a' }, /required must be a list of property names/],
      [{ type: 'object', properties: { a: 3 } }, /properties\/a must be an object or a boolean/],
      [{ type: 'object', properties: { a: { minLength: -1 } } }, /minLength must be a non-negative integer/],
      [
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
        /"#\/\$defs\/missing" can't be resolved/,
      ],
      [{ type: 'object', anyOf: [] }, /anyOf must be a non-empty list of schemas/],
    ];
    for (const [schema, reason] of bad) {
      expect(() => withTool('interpreted', schema)).toThrow(reason);
      // The compiled path rejects the same schemas (with ajv's words).
      expect(() => withTool('compiled', schema)).toThrow(/is not a valid JSON Schema/);
    }
    // ajv compiles lazily, so it finds a bad pattern on the first call; the shape check at once.
    const elsewhere = { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } };
    expect(() => withTool('interpreted', elsewhere)).toThrow(
      /\$ref "https:\/\/example.com\/a.json" can't be resolved/,
    );
    expect(() => withTool('compiled', elsewhere)).toThrow(/is not a valid JSON Schema/);
    const anchored = {
      type: 'object',
      properties: { a: { $ref: '#num' } },
      $defs: { n: { $anchor: 'num', type: 'number' } },
    };
    const viaAnchor = await call(withTool('interpreted', anchored), { a: 'x' });
    expect(viaAnchor).toEqual({
      isError: true,
      text: 'Invalid arguments: argument `a` must be number (type)',
    });
    const dynamic = { type: 'object', properties: { a: { $dynamicRef: '#node' } } };
    expect(() => withTool('interpreted', dynamic)).toThrow(/\$dynamicRef is not supported/);
    const badPattern = { type: 'object', properties: { a: { pattern: '(' } } };
    expect(() => withTool('interpreted', badPattern)).toThrow(
      /properties\/a\/pattern is not a valid regular expression/,
    );
  });

  it('validates prompt arguments too', async () => {
    const d = new Dispatcher({ schemaValidation: 'interpreted', logger: quiet });
    d.registerPrompt({
      name: 'greet',
      description: 'Greets',
      argsSchema: {
        type: 'object',
        properties: { who: { type: 'string', enum: ['world', 'you'] } },
        required: ['who'],
      },
      get: ({ who }: { who: string }) => `hello ${who}`,
    });
    const error = await d
      .handle(rpc('prompts/get', { name: 'greet', arguments: { who: 'them' } }), makeContext())
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toContain('argument `who` must be one of "world", "you" (enum)');
  });

  it('rejects an unknown schemaValidation option', () => {
    expect(() => new Dispatcher({ schemaValidation: 'fast' as never, logger: quiet })).toThrow(
      /schemaValidation/,
    );
  });
});
