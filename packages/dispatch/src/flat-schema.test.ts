/** The flat-schema validator against ajv itself: same verdicts, same issues, same order, on random arguments. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatSchemaValidator } from './flat-schema.js';
import { compileSchema } from './schema-compiler.js';

const SCHEMAS: Record<string, unknown>[] = [
  {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'the id', minLength: 2, maxLength: 8, pattern: '^u' },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
      active: { type: 'boolean' },
      nothing: { type: 'null' },
    },
    required: ['id', 'limit'],
    additionalProperties: false,
  },
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    title: 'search',
    properties: {
      mode: { type: 'string', enum: ['fast', 'exact'] },
      level: { type: 'integer', enum: [1, 2, 3], const: 2 },
      'a/b~c': { type: 'string', const: 'x' },
      '2': { type: 'number', minimum: -5 },
    },
    required: ['mode', 'missing'],
  },
];

const argument = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('u', 'uu', 'ux😀😀😀😀😀😀😀', 'fast', 'exact', 'x'),
  fc.integer({ min: -10, max: 60 }),
  fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0.25, 0.5, 0.75, 1, 2, 3),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const keys = fc.constantFrom(
  'id',
  'limit',
  'ratio',
  'active',
  'nothing',
  'mode',
  'level',
  'a/b~c',
  '2',
  'extra',
);
const args = fc.oneof(fc.dictionary(keys, argument, { maxKeys: 6 }), fc.constantFrom(null, [], 'text', 3));

describe('flatSchemaValidator', () => {
  it('answers exactly as the ajv-compiled validator does', () => {
    for (const schema of SCHEMAS) {
      const flat = flatSchemaValidator(schema);
      expect(flat).toBeDefined();
      const compiled = compileSchema(schema, 'inputSchema', 'compiled');
      fc.assert(
        fc.property(args, (value) => {
          expect(flat?.(value)).toEqual(compiled(value));
        }),
        { numRuns: 3000 },
      );
    }
  });

  it('leaves every other schema to the general path', () => {
    const general = [
      { type: 'object', properties: { when: { type: 'string', format: 'date-time' } } },
      { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
      { type: 'object', properties: { n: { type: ['string', 'null'] } } },
      { type: 'object', properties: { n: { type: 'string', minimum: 3 } } },
      { type: 'object', properties: { n: { type: 'string', minLength: -1 } } },
      { type: 'object', properties: { n: { type: 'string', pattern: '(' } } },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', required: 'id' },
      { type: 'object', $defs: {}, properties: {} },
      { type: 'object', properties: { n: { $ref: '#/$defs/n' } } },
      { anyOf: [{ type: 'object' }] },
    ];
    for (const schema of general) expect(flatSchemaValidator(schema), JSON.stringify(schema)).toBeUndefined();
  });
});
