/** Compiles JSON Schemas once (2020-12 by default, draft-07 when declared) and turns failures into argument issues. */

import type AjvDraft07Module from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import {
  type ArgumentIssue,
  enumIssue,
  notAllowedIssue,
  pointerToPath,
  requiredIssue,
  subject,
  uniqueIssues,
} from './argument-issue.js';
import { flatSchemaValidator } from './flat-schema.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { ajvModules, cfworkerModule, missingPeer } from './optional-peers.js';
import { interpretSchema } from './schema-interpreter.js';
import { schemaShapeProblem } from './schema-shape.js';

export type { ArgumentIssue } from './argument-issue.js';
export { describeIssues } from './argument-issue.js';

type SchemaValidator = (value: unknown) => ArgumentIssue[] | undefined;

/**
 * How argument schemas are checked. `compiled`: ajv generates code per schema (fast; needs
 * `new Function`). `interpreted`: walked on each call, for runtimes that forbid code generation
 * (Cloudflare Workers). `auto` (default): compiled where code generation works, else interpreted.
 */
export type SchemaValidation = 'auto' | 'compiled' | 'interpreted';

type AjvInstance = InstanceType<typeof AjvDraft07Module.default>;

const ajvOptions = {
  allErrors: true,
  strict: false,
  // Tool schemas often share an $id; each compile must stay independent.
  addUsedSchema: false,
  // No loadSchema: $ref is never fetched (SEP-2106); a missing ref is a registration error.
  logger: false,
} as const;

let instances: { modern: AjvInstance; draft07: AjvInstance } | undefined;

type Dialect = '2020-12' | 'draft-07';

function dialectOf(schema: Record<string, unknown> | boolean): Dialect {
  const dialect = typeof schema === 'boolean' ? undefined : schema.$schema;
  if (dialect === undefined || (typeof dialect === 'string' && dialect.includes('2020-12'))) return '2020-12';
  if (typeof dialect === 'string' && dialect.includes('draft-07')) return 'draft-07';
  throw dispatchError(
    'invalid_schema',
    `unsupported $schema ${JSON.stringify(dialect)}: use JSON Schema 2020-12 (default) or draft-07`,
  );
}

function ajvFor(dialect: Dialect): AjvInstance {
  instances ??= createInstances();
  return dialect === '2020-12' ? instances.modern : instances.draft07;
}

let codeGeneration: boolean | undefined;

/** Whether this runtime runs code built from strings; asked once, on the first schema. */
function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      codeGeneration = new Function('return 1')() === 1;
    } catch {
      // workerd throws EvalError: "Code generation from strings disallowed for this context".
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

function createInstances(): { modern: AjvInstance; draft07: AjvInstance } {
  const ajv = ajvModules();
  if (ajv === undefined) throw missingPeer('ajv ajv-formats', 'compiled JSON Schema validation');
  const modern = new ajv.modern.default(ajvOptions) as unknown as AjvInstance;
  const draft07 = new ajv.draft07.default(ajvOptions);
  ajv.formats.default(modern as never);
  ajv.formats.default(draft07 as never);
  return { modern, draft07 };
}

/**
 * Whether schemas are interpreted: asked for, or `auto` where code generation is forbidden or
 * only @cfworker/json-schema is installed (ajv absent).
 */
function interpreted(validation: SchemaValidation): boolean {
  if (validation !== 'auto') return validation === 'interpreted';
  if (!canGenerateCode()) return true;
  return ajvModules() === undefined && cfworkerModule() !== undefined;
}

/**
 * The registration check alone, for a schema a Standard Schema library validates itself: ajv's
 * meta-schema check when ajv is installed, else the structural check; no validator is built.
 */
export function checkPublishedSchema(schema: unknown, what: string, validation: SchemaValidation): void {
  if (!isJsonObject(schema) && typeof schema !== 'boolean') {
    throw dispatchError('invalid_schema', `${what} must be a JSON Schema object`);
  }
  dialectOf(schema);
  if (validation === 'auto' && (isAnyObjectSchema(schema) || flatSchemaValidator(schema) !== undefined))
    return;
  if (!interpreted(validation) && ajvModules() !== undefined) {
    compileSchema(schema, what, validation);
    return;
  }
  const problem = schemaShapeProblem(schema);
  if (problem !== undefined)
    throw dispatchError('invalid_schema', `${what} is not a valid JSON Schema: ${problem}`);
}

/**
 * Checks a schema at once and compiles it when first used: a 320-tool catalogue then starts in
 * milliseconds instead of paying ajv's code generation for tools nobody calls. Schemas with a `$ref`
 * are compiled at once, so a missing reference is still a registration error. Throws
 * LocalError('invalid_schema') with the reason when it is not a usable schema. Where code
 * generation is unavailable (or `validation` is `interpreted`) the schema is interpreted instead;
 * ajv's meta-schema check needs code generation too, so there `schemaShapeProblem` checks the shape.
 * Under `auto`, a flat schema (named primitive properties, see flat-schema) needs no package at all.
 */
export function compileSchema(
  schema: unknown,
  what: string,
  validation: SchemaValidation = 'auto',
): SchemaValidator {
  if (!isJsonObject(schema) && typeof schema !== 'boolean') {
    throw dispatchError('invalid_schema', `${what} must be a JSON Schema object`);
  }
  const dialect = dialectOf(schema);
  // A tool with no argument rules (the default `{type: 'object'}`) needs no validator package at all.
  if (isAnyObjectSchema(schema)) return (value) => (isJsonObject(value) ? undefined : [ANY_OBJECT_ISSUE]);
  // Most tool schemas: checked and validated here, with no validator package loaded for them.
  const flat = validation === 'auto' ? flatSchemaValidator(schema) : undefined;
  if (flat !== undefined) return flat;
  if (interpreted(validation)) {
    const problem = schemaShapeProblem(schema);
    if (problem !== undefined)
      throw dispatchError('invalid_schema', `${what} is not a valid JSON Schema: ${problem}`);
    return interpretSchema(schema, dialect, what);
  }
  const ajv = ajvFor(dialect);
  if (ajv.validateSchema(schema) !== true) {
    throw dispatchError(
      'invalid_schema',
      `${what} is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`,
    );
  }
  let validate = hasReference(schema) ? compileNow(ajv, schema, what) : undefined;
  return (value) => {
    validate ??= compileNow(ajv, schema, what);
    return validate(value) ? undefined : toIssues(validate.errors ?? []);
  };
}

const ANY_OBJECT_ISSUE: ArgumentIssue = Object.freeze({
  argument: '',
  rule: 'type',
  message: 'arguments must be an object',
});

/** `{type: 'object'}`, optionally with `$schema` and an empty `properties`: any object passes. */
function isAnyObjectSchema(schema: Record<string, unknown> | boolean): boolean {
  if (typeof schema === 'boolean' || schema.type !== 'object') return false;
  for (const key of Object.keys(schema)) {
    if (key === 'type' || key === '$schema') continue;
    if (
      key === 'properties' &&
      isJsonObject(schema.properties) &&
      Object.keys(schema.properties).length === 0
    )
      continue;
    return false;
  }
  return true;
}

function compileNow(
  ajv: AjvInstance,
  schema: Record<string, unknown> | boolean,
  what: string,
): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw dispatchError('invalid_schema', `${what} is not a valid JSON Schema: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function hasReference(schema: unknown): boolean {
  return typeof schema === 'object' && /"\$(dynamicRef|recursiveRef|ref)"/.test(JSON.stringify(schema));
}

function toIssues(errors: readonly ErrorObject[]): ArgumentIssue[] {
  return uniqueIssues(errors.map(toIssue));
}

function toIssue(error: ErrorObject): ArgumentIssue {
  const base = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string')
    return requiredIssue(base, params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string')
    return notAllowedIssue(base, params.additionalProperty);
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    return enumIssue(base, params.allowedValues);
  return {
    argument: base,
    rule: error.keyword,
    message: `${subject(base)} ${error.message ?? 'is invalid'}`,
  };
}
