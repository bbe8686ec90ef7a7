import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonSchemaToTs, schemaArgs } from './json-schema-to-ts.js';

const line = (schema: unknown) => jsonSchemaToTs(schema, { multiline: false });

describe('jsonSchemaToTs', () => {
  test('primitives, enums, consts and nullables', () => {
    expect(line({ type: 'string' })).toBe('string');
    expect(line({ type: 'integer' })).toBe('number');
    expect(line({ type: 'boolean' })).toBe('boolean');
    expect(line({ type: 'null' })).toBe('null');
    expect(line({ enum: ['a', 'b', 3, null] })).toBe('"a" | "b" | 3 | null');
    expect(line({ const: 'fixed' })).toBe('"fixed"');
    expect(line({ type: ['string', 'null'] })).toBe('string | null');
    expect(line({ type: 'string', nullable: true })).toBe('string | null');
    expect(line(true)).toBe('unknown');
    expect(line(false)).toBe('never');
    expect(line({})).toBe('unknown');
  });

  test('objects with required and optional properties, quoted keys and index signatures', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' }, 'content-type': { type: 'string' }, count: { type: 'number' } },
      required: ['id'],
    };
    expect(line(schema)).toBe('{ id: string; "content-type"?: string; count?: number; }');
    expect(line({ type: 'object' })).toBe('Record<string, unknown>');
    expect(line({ type: 'object', additionalProperties: { type: 'number' } })).toBe('Record<string, number>');
    expect(line({ type: 'object', properties: {}, additionalProperties: false })).toBe(
      'Record<string, never>',
    );
    expect(line({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true })).toBe(
      '{ a?: string; [key: string]: unknown; }',
    );
  });

  test('arrays, tuples and unions needing parentheses', () => {
    expect(line({ type: 'array', items: { type: 'string' } })).toBe('string[]');
    expect(line({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } })).toBe(
      '(string | number)[]',
    );
    expect(line({ type: 'array' })).toBe('unknown[]');
    expect(line({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] })).toBe(
      '[string, number]',
    );
    expect(line({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] })).toBe(
      'string | string[]',
    );
    expect(
      line({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } } },
          { type: 'object', properties: { b: { type: 'number' } } },
        ],
      }),
    ).toBe('{ a?: string; } & { b?: number; }');
  });

  test('constraint-only anyOf members refine rather than replace the shape', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    };
    expect(line(schema)).toBe('{ a?: string; b?: string; }');
  });

  test('local $refs resolve, cycles stop at unknown', () => {
    const schema = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: { type: 'object', properties: { value: { type: 'number' }, next: { $ref: '#/$defs/Node' } } },
      },
    };
    expect(line(schema)).toBe('{ node?: { value?: number; next?: unknown; }; }');
    expect(line({ $ref: 'https://example.com/remote.json' })).toBe('unknown');
  });

  test('multi-line output carries descriptions and constraints as doc comments', () => {
    const schema = {
      type: 'object',
      properties: {
        instruction: { type: 'string', description: 'What to do' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: 10,
          description: 'Most results\nper page',
        },
        sneaky: { type: 'string', description: 'ends a comment */ here' },
      },
      required: ['instruction'],
    };
    expect(jsonSchemaToTs(schema)).toBe(
      [
        '{',
        '  /** What to do */',
        '  instruction: string;',
        '  /**',
        '   * Most results',
        '   * per page',
        '   * @default 10',
        '   * @minimum 1',
        '   * @maximum 100',
        '   */',
        '  limit?: number;',
        '  /** ends a comment *\\/ here */',
        '  sneaky?: string;',
        '}',
      ].join('\n'),
    );
  });

  test('depth and width are bounded', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { type: 'array', items: deep };
    expect(line(deep)).toBe(`${'unknown'}${'[]'.repeat(9)}`);
    const wide = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`p${i}`, { type: 'string' }])),
    };
    expect(jsonSchemaToTs(wide, { multiline: false, maxProperties: 2 })).toBe(
      '{ p0?: string; p1?: string; [key: string]: unknown; }',
    );
  });

  test('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (schema) => {
        expect(typeof jsonSchemaToTs(schema)).toBe('string');
        expect(Array.isArray(schemaArgs(schema))).toBe(true);
      }),
      { numRuns: 500 },
    );
    const hostile = { type: 'object', properties: { a: { $ref: '#' } } };
    expect(line(hostile)).toBe('{ a?: { a?: unknown; }; }');
  });
});

describe('schemaArgs', () => {
  test('lists top-level properties with one-line types', () => {
    expect(
      schemaArgs({
        type: 'object',
        properties: { id: { type: 'string' }, tags: { type: 'array', items: { enum: ['x', 'y'] } } },
        required: ['id'],
      }),
    ).toEqual([
      { name: 'id', tsType: 'string', optional: false },
      { name: 'tags', tsType: '("x" | "y")[]', optional: true },
    ]);
    expect(schemaArgs({ type: 'object' })).toEqual([]);
    expect(schemaArgs('nonsense')).toEqual([]);
  });
});
