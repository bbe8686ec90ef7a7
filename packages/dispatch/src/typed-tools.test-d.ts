/** Type tests (vitest typecheck): handler argument and return types inferred from every schema style. */

import type { LogLevel } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import type { ToolDefinition } from './definitions.js';
import { Dispatcher } from './dispatcher.js';
import type { HandlerContext } from './handler-context.js';
import type { JsonSchemaType } from './json-schema-type.js';
import { toolError } from './tool-result.js';

const d = new Dispatcher();

describe('JSON Schema literals', () => {
  it('infers required, optional, nested, enum and array arguments (inline, no as const needed)', () => {
    d.registerTool({
      name: 'add',
      description: 'adds',
      inputSchema: {
        type: 'object',
        properties: {
          a: { type: 'number' },
          b: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          mode: { enum: ['fast', 'slow'] },
          owner: {
            type: 'object',
            properties: { id: { type: 'string' } },
            required: ['id'],
            additionalProperties: false,
          },
          note: { type: ['string', 'null'] },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      handler: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{
          a: number;
          b: number;
          tags?: string[];
          mode?: 'fast' | 'slow';
          owner?: { id: string };
          note?: string | null;
        }>();
        expectTypeOf(ctx).toEqualTypeOf<HandlerContext>();
        return args.a + args.b;
      },
    });
  });

  it('works with a schema declared `as const` elsewhere, and keeps extra keys without additionalProperties: false', () => {
    const schema = {
      type: 'object',
      properties: { path: { type: 'string' }, recursive: { type: 'boolean' } },
      required: ['path'],
    } as const;
    d.registerTool({
      name: 'ls',
      description: 'lists',
      inputSchema: schema,
      handler: ({ path, recursive }) => {
        expectTypeOf(path).toEqualTypeOf<string>();
        expectTypeOf(recursive).toEqualTypeOf<boolean | undefined>();
        return path;
      },
    });
    expectTypeOf<JsonSchemaType<typeof schema>>().toEqualTypeOf<{
      [key: string]: unknown;
      path: string;
      recursive?: boolean;
    }>();
  });

  it('draft-07 schemas infer the same way', () => {
    d.registerTool({
      name: 'draft07',
      description: 'draft-07',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { when: { type: 'string', format: 'date-time' }, count: { type: 'integer' } },
        required: ['when'],
        additionalProperties: false,
      },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ when: string; count?: number }>();
      },
    });
  });

  it('outputSchema types the return value', () => {
    d.registerTool({
      name: 'stat',
      description: 'stat',
      outputSchema: {
        type: 'object',
        properties: { size: { type: 'number' } },
        required: ['size'],
        additionalProperties: false,
      },
      handler: () => ({ size: 1 }),
    });
    d.registerTool({
      name: 'stat-wrong',
      description: 'stat',
      outputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
      // @ts-expect-error size must be a number
      handler: () => ({ size: 'big' }),
    });
    d.registerTool({
      name: 'stat-error',
      description: 'errors are always allowed',
      outputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
      handler: () => toolError('no such file'),
    });
  });

  it('a non-literal required list leaves every property optional', () => {
    const required: string[] = ['a'];
    d.registerTool({
      name: 'loose-required',
      description: 'd',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' } },
        required,
        additionalProperties: false,
      },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a?: number }>();
      },
    });
  });

  it('no schema (or a non-literal one) gives Record<string, unknown>', () => {
    d.registerTool({
      name: 'any',
      description: 'any',
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      },
    });
    const loose: Record<string, unknown> = { type: 'object' };
    d.registerTool({
      name: 'loose',
      description: 'loose',
      inputSchema: loose,
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      },
    });
  });
});

describe('Standard JSON Schema libraries', () => {
  it('zod: the handler receives the output type (after transforms); outputSchema takes the input type', () => {
    d.registerTool({
      name: 'zod',
      description: 'zod',
      inputSchema: z.object({ n: z.string().transform(Number), flag: z.boolean().optional() }),
      outputSchema: z.object({ doubled: z.number() }),
      handler: async (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number; flag?: boolean | undefined }>();
        return { doubled: args.n * 2 };
      },
    });
    d.registerTool({
      name: 'zod-wrong',
      description: 'zod',
      outputSchema: z.object({ doubled: z.number() }),
      // @ts-expect-error doubled must be a number
      handler: () => ({ doubled: 'two' }),
    });
  });

  it('ArkType', () => {
    d.registerTool({
      name: 'ark',
      description: 'ark',
      inputSchema: type({ name: 'string', 'age?': 'number.integer' }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ name: string; age?: number }>();
        return args.name;
      },
    });
  });

  it('Valibot through toStandardJsonSchema', () => {
    d.registerTool({
      name: 'valibot',
      description: 'valibot',
      inputSchema: toStandardJsonSchema(
        v.object({
          id: v.pipe(
            v.string(),
            v.transform((s) => s.length),
          ),
          tags: v.array(v.string()),
        }),
      ),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ id: number; tags: string[] }>();
        return args.id;
      },
    });
  });

  it('operations and prompts infer too', () => {
    d.registerOperation({
      kind: 'query',
      id: 'servers',
      description: 'servers',
      args: z.object({ region: z.string() }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ region: string }>();
        return [];
      },
    });
    d.registerPrompt({
      name: 'p',
      description: 'p',
      argsSchema: z.object({ topic: z.string() }),
      get: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ topic: string }>();
        return args.topic;
      },
    });
    d.registerPrompt({
      name: 'plain',
      description: 'p',
      arguments: [{ name: 'topic' }],
      get: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, string>>();
        return 'x';
      },
    });
  });

  it('refuses schemas without a JSON Schema form at compile time', () => {
    d.registerTool({
      name: 'plain-valibot',
      description: 'needs toStandardJsonSchema',
      // @ts-expect-error a bare Valibot schema has no ~standard.jsonSchema
      inputSchema: v.object({ a: v.string() }),
      handler: () => 'x',
    });
    d.registerTool({
      name: 'zod3',
      description: 'zod 3 has no JSON Schema converter',
      // @ts-expect-error zod 3 schemas are not Standard JSON Schemas
      inputSchema: z3.object({ a: z3.string() }),
      handler: () => 'x',
    });
  });
});

describe('the handler context', () => {
  it('types signal, peer, progress, log and elicitation answers', () => {
    d.registerTool({
      name: 'ctx',
      description: 'ctx',
      handler: async (_args, ctx) => {
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(ctx.peer).toEqualTypeOf<Peer>();
        expectTypeOf(ctx.progress).parameters.toEqualTypeOf<
          [number, (number | undefined)?, (string | undefined)?]
        >();
        expectTypeOf(ctx.log).parameter(0).toEqualTypeOf<LogLevel>();
        const answer = await ctx.elicit({
          message: 'Name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        });
        expectTypeOf(answer.action).toEqualTypeOf<'accept' | 'decline' | 'cancel'>();
        expectTypeOf(answer.content).toEqualTypeOf<{ name: string } | undefined>();
        return answer.content?.name;
      },
    });
  });
});

it('a ToolDefinition annotated by hand (no generics) still takes any schema and handler', () => {
  const definition: ToolDefinition = {
    name: 'by-hand',
    description: 'd',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    handler: (args) => args,
  };
  d.registerTool(definition);
});
