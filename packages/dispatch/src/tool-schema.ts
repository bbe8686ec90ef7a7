/**
 * Tool, operation and prompt schemas: plain JSON Schema (checked and compiled with ajv) or a
 * Standard JSON Schema value (published as its library's own JSON Schema, validated with its own
 * `~standard.validate`). Everything else is refused at registration.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import { isJsonObject } from './json.js';
import type { JsonSchemaType } from './json-schema-type.js';
import { dispatchError } from './local-errors.js';
import {
  type ArgumentIssue,
  checkPublishedSchema,
  compileSchema,
  type SchemaValidation,
} from './schema-compiler.js';
import type { StandardSchemaV1, StandardToolSchema, StandardTypedV1 } from './standard-schema.js';

/** A JSON Schema written as an object literal (readonly, e.g. `as const`, is fine). */
type JsonSchemaObject = { readonly [key: string]: unknown };

/** What `inputSchema`, `outputSchema`, operation `args` and prompt `argsSchema` accept. */
export type ToolSchema = JsonSchemaObject | StandardToolSchema;

/** The handler's argument type for a schema: the library's output type, or the JSON Schema's type. */
export type InferArgs<S> = S extends StandardTypedV1
  ? StandardTypedV1.InferOutput<S>
  : ObjectOrRecord<JsonSchemaType<S>>;

/** What a handler returns for an `outputSchema`: the library's input type (it is validated, then sent), or the JSON Schema's type. */
export type InferOutputValue<S> = S extends StandardTypedV1
  ? StandardTypedV1.InferInput<S>
  : JsonSchemaType<S>;

type ObjectOrRecord<T> = unknown extends T ? Record<string, unknown> : T;

export type ParseOutcome = { ok: true; value: unknown } | { ok: false; issues: ArgumentIssue[] };

/** Validates (and, for Standard Schemas, transforms) a value; async only when the library's validate is. */
export type SchemaParser = (value: unknown) => ParseOutcome | Promise<ParseOutcome>;

interface ResolvedSchema {
  /** The JSON Schema that is published (not yet copied or frozen). */
  readonly json: JsonObject;
  /** Standard schemas only: the library's validator. JSON Schemas are compiled by the caller. */
  readonly standard: SchemaParser | undefined;
}

const JSON_SCHEMA_TARGET = { target: 'draft-2020-12' } as const;

/**
 * Turns what the embedder passed into a publishable JSON Schema and, for Standard Schemas, a
 * validator. `what` names the place (`tool x: inputSchema`) in every error.
 */
export function resolveSchema(schema: unknown, what: string, io: 'input' | 'output'): ResolvedSchema {
  const standard = standardProps(schema);
  if (standard) return fromStandard(standard, what, io);
  if (!isJsonObject(schema)) throw dispatchError('invalid_schema', `${what} must be a JSON Schema object`);
  const shape = rawShapeProblem(schema);
  if (shape !== undefined) throw dispatchError('invalid_schema', `${what} ${shape}`);
  const foreign = foreignValue(schema);
  if (foreign !== undefined) throw dispatchError('invalid_schema', `${what} ${foreign}`);
  return { json: schema, standard: undefined };
}

/**
 * The official SDK v1 took a raw shape (`{ name: z.string() }`); here a schema is one value. A plain
 * object whose properties are schemas of a library is that habit: say how to wrap it.
 */
function rawShapeProblem(schema: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(schema)) {
    if (typeof value !== 'object' && typeof value !== 'function') continue;
    if (value === null || Array.isArray(value)) continue;
    const standard = (value as Record<string, unknown>)['~standard'];
    const vendor = isJsonObject(standard) ? standard.vendor : isZod3(value) ? 'zod' : undefined;
    if (vendor === undefined) continue;
    const wrap =
      vendor === 'zod'
        ? 'wrap it in `z.object({...})`'
        : `wrap it in ${String(vendor)}'s object schema (zod: \`z.object({...})\`)`;
    return `is a raw shape (property ${JSON.stringify(key)} is a ${String(vendor)} schema), the official SDK v1 habit: ${wrap}`;
  }
  return undefined;
}

/** The `~standard` props of a Standard Schema value (a function too: ArkType types are callable). */
function standardProps(schema: unknown): Record<string, unknown> | undefined {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) return undefined;
  const props = (schema as Record<string, unknown>)['~standard'];
  return isJsonObject(props) && props.version === 1 ? props : undefined;
}

function fromStandard(props: Record<string, unknown>, what: string, io: 'input' | 'output'): ResolvedSchema {
  const vendor = typeof props.vendor === 'string' ? props.vendor : 'unknown';
  const converter = props.jsonSchema;
  if (!isJsonObject(converter) || typeof converter[io] !== 'function') {
    throw dispatchError(
      'invalid_schema',
      `${what} is a Standard Schema (vendor ${vendor}) without a JSON Schema converter (~standard.jsonSchema), so it cannot be published: ` +
        'use zod >= 4.2 or ArkType >= 2.1.28, wrap a Valibot schema with toStandardJsonSchema() from @valibot/to-json-schema, or pass a plain JSON Schema',
    );
  }
  if (typeof props.validate !== 'function') {
    throw dispatchError('invalid_schema', `${what} (vendor ${vendor}) has no ~standard.validate function`);
  }
  let json: unknown;
  try {
    json = (converter[io] as (options: typeof JSON_SCHEMA_TARGET) => unknown)(JSON_SCHEMA_TARGET);
  } catch (error) {
    throw dispatchError(
      'invalid_schema',
      `${what}: ${vendor} cannot express this schema as JSON Schema: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (!isJsonObject(json)) {
    throw dispatchError('invalid_schema', `${what}: ${vendor}'s JSON Schema converter returned no object`);
  }
  const validate = props.validate as StandardSchemaV1.Props['validate'];
  return { json, standard: (value) => settle(validate(value)) };
}

function settle(
  result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>,
): ParseOutcome | Promise<ParseOutcome> {
  return result instanceof Promise ? result.then(toOutcome) : toOutcome(result);
}

function toOutcome(result: StandardSchemaV1.Result<unknown>): ParseOutcome {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.map(toIssue) };
}

function toIssue(issue: StandardSchemaV1.Issue): ArgumentIssue {
  let argument = '';
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') argument += `[${key}]`;
    else argument += argument === '' ? String(key) : `.${String(key)}`;
  }
  const code = (issue as { code?: unknown }).code;
  const subject = argument === '' ? 'arguments' : `argument \`${argument}\``;
  return {
    argument,
    rule: typeof code === 'string' ? code : 'invalid',
    message: `${subject}: ${issue.message}`,
  };
}

/**
 * Why a value is not plain JSON (a class instance, a function, …), or undefined when it is. The
 * path to it is only spelled out when something is found: registering a catalogue walks every
 * schema, and building a string per node was most of that walk.
 */
function foreignValue(value: unknown, at: (string | number)[] = []): string | undefined {
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    return `is not a JSON Schema: ${spell(at)} is a ${typeof value}`;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      at.push(i);
      const found = foreignValue(value[i], at);
      at.pop();
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== Object.prototype && proto !== null) {
    if (at.length === 0 && isZod3(value)) {
      return 'is a zod 3 schema, which has no JSON Schema form: use zod >= 4.2 (import from "zod" v4) or a plain JSON Schema';
    }
    const name = (proto.constructor as { name?: string } | undefined)?.name ?? 'object';
    return `is not a JSON Schema: ${spell(at)} is a ${name} instance (pass a plain JSON Schema object or a Standard JSON Schema such as zod >= 4.2)`;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    at.push(key);
    const found = foreignValue((value as Record<string, unknown>)[key], at);
    at.pop();
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `['properties', 'tags', 0]` → `properties.tags[0]`; the root is `it`. */
function spell(at: readonly (string | number)[]): string {
  if (at.length === 0) return 'it';
  let path = '';
  for (const step of at) path += typeof step === 'number' ? `[${step}]` : path === '' ? step : `.${step}`;
  return path;
}

function isZod3(value: object): boolean {
  const candidate = value as { _def?: unknown; safeParse?: unknown };
  return isJsonObject(candidate._def) && typeof candidate.safeParse === 'function';
}

/** A resolved schema's validator: the library's own, or the JSON Schema compiled by ajv. */
export function schemaParser(
  resolved: ResolvedSchema,
  published: unknown,
  what: string,
  validation: SchemaValidation,
): SchemaParser {
  if (resolved.standard) {
    checkPublishedSchema(published, what, validation);
    return resolved.standard;
  }
  const validate = compileSchema(published, what, validation);
  return (value) => {
    const issues = validate(value);
    return issues ? { ok: false, issues } : { ok: true, value };
  };
}
