/** Compiles JSON Schemas once (2020-12 by default, draft-07 when declared) and turns failures into argument issues. */
import { LocalError } from '@agentd/rpc-frame';
import type { ErrorObject, ValidateFunction } from 'ajv';
import AjvDraft07Module from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isJsonObject } from './json.js';

/** One reason arguments failed their schema: which argument (JSON pointer-ish path), which rule, in words. */
export interface ArgumentIssue {
  /** `''` for the arguments object itself, else the dotted path, e.g. `user.email` or `items[2]`. */
  argument: string;
  /** The JSON Schema keyword that failed: `required`, `type`, `enum`, `additionalProperties`, … */
  rule: string;
  message: string;
}

export type SchemaValidator = (value: unknown) => ArgumentIssue[] | undefined;

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

function ajvFor(schema: Record<string, unknown>): AjvInstance {
  instances ??= createInstances();
  const dialect = schema.$schema;
  if (dialect === undefined || (typeof dialect === 'string' && dialect.includes('2020-12')))
    return instances.modern;
  if (typeof dialect === 'string' && dialect.includes('draft-07')) return instances.draft07;
  throw new LocalError(
    'unsupported_schema',
    `unsupported $schema ${JSON.stringify(dialect)}: use JSON Schema 2020-12 (default) or draft-07`,
  );
}

function createInstances(): { modern: AjvInstance; draft07: AjvInstance } {
  const modern = new Ajv2020Module.default(ajvOptions) as unknown as AjvInstance;
  const draft07 = new AjvDraft07Module.default(ajvOptions);
  addFormatsModule.default(modern as never);
  addFormatsModule.default(draft07 as never);
  return { modern, draft07 };
}

/**
 * Checks a schema at once and compiles it when first used: a 320-tool catalogue then starts in
 * milliseconds instead of paying ajv's code generation for tools nobody calls. Schemas with a `$ref`
 * are compiled at once, so a missing reference is still a registration error. Throws
 * LocalError('invalid_schema') with the reason when it is not a usable schema.
 */
export function compileSchema(schema: unknown, what: string): SchemaValidator {
  if (!isJsonObject(schema) && typeof schema !== 'boolean') {
    throw new LocalError('invalid_schema', `${what} must be a JSON Schema object`);
  }
  const ajv = typeof schema === 'boolean' ? ajvFor({}) : ajvFor(schema);
  if (ajv.validateSchema(schema) !== true) {
    throw new LocalError(
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

function compileNow(
  ajv: AjvInstance,
  schema: Record<string, unknown> | boolean,
  what: string,
): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new LocalError(
      'invalid_schema',
      `${what} is not a valid JSON Schema: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

function hasReference(schema: unknown): boolean {
  return typeof schema === 'object' && /"\$(dynamicRef|recursiveRef|ref)"/.test(JSON.stringify(schema));
}

function toIssues(errors: readonly ErrorObject[]): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = toIssue(error);
    const key = `${issue.argument}\u0000${issue.rule}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toIssue(error: ErrorObject): ArgumentIssue {
  const base = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    const argument = join(base, params.missingProperty);
    return { argument, rule: 'required', message: `argument \`${argument}\` is required` };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    const argument = join(base, params.additionalProperty);
    return { argument, rule: 'additionalProperties', message: `argument \`${argument}\` is not allowed` };
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues.map((v) => JSON.stringify(v)).join(', ');
    return { argument: base, rule: 'enum', message: `${subject(base)} must be one of ${allowed}` };
  }
  return {
    argument: base,
    rule: error.keyword,
    message: `${subject(base)} ${error.message ?? 'is invalid'}`,
  };
}

function subject(path: string): string {
  return path === '' ? 'arguments' : `argument \`${path}\``;
}

function join(base: string, property: string): string {
  return base === '' ? property : `${base}.${property}`;
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

/** Human text for a list of issues: at most five, then a count. */
export function describeIssues(issues: readonly ArgumentIssue[]): string {
  const shown = issues.slice(0, 5).map((issue) => `${issue.message} (${issue.rule})`);
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  return `${shown.join('; ')}${more}`;
}
