/**
 * JSON Schema validation without code generation, for runtimes that forbid `new Function`
 * (Cloudflare Workers): @cfworker/json-schema walks the schema on each call. Its output units
 * become the same ArgumentIssues (and texts) as the compiled path's.
 */
import type { OutputUnit, Schema, SchemaDraft } from '@cfworker/json-schema';
import {
  type ArgumentIssue,
  enumIssue,
  notAllowedIssue,
  pointerToPath,
  requiredIssue,
  subject,
  uniqueIssues,
} from './argument-issue.js';
import { dispatchError } from './local-errors.js';
import { cfworkerModule, missingPeer } from './optional-peers.js';

type InterpretedValidator = (value: unknown) => ArgumentIssue[] | undefined;

/**
 * Keywords whose unit only says "a child failed": the child's own unit names the argument and
 * the rule, so these would repeat it less precisely.
 */
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'dependentSchemas',
  'dependencies',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
]);

/**
 * Throws LocalError('invalid_schema') when a `$ref` points at nothing in the schema (none are
 * fetched) or the schema uses `$dynamicRef`, which this validator does not implement.
 */
export function interpretSchema(
  schema: Record<string, unknown> | boolean,
  dialect: '2020-12' | 'draft-07',
  what: string,
): InterpretedValidator {
  const cfworker = cfworkerModule();
  if (cfworker === undefined) {
    throw missingPeer('@cfworker/json-schema', 'JSON Schema validation without code generation');
  }
  const { dereference, validate } = cfworker;
  const draft: SchemaDraft = dialect === 'draft-07' ? '7' : '2020-12';
  // dereference annotates the schema it walks (`__absolute_uri__`, …): a copy, the published one is frozen.
  const copy = structuredClone(schema) as Schema | boolean;
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(copy);
  } catch (error) {
    throw dispatchError('invalid_schema', `${what} is not a valid JSON Schema: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const problem = referenceProblem(copy, lookup);
  if (problem !== undefined)
    throw dispatchError('invalid_schema', `${what} is not a valid JSON Schema: ${problem}`);
  return (value) => {
    // shortCircuit off: every failure, as ajv's allErrors gives.
    const result = validate(value, copy, draft, lookup, false);
    return result.valid ? undefined : toIssues(result.errors);
  };
}

/**
 * dereference marks every subschema it visits with `__absolute_uri__`, and each `$ref` with the
 * absolute URI it must find in the lookup; values under `const`, `default`, … stay unmarked.
 */
function referenceProblem(node: unknown, lookup: Record<string, unknown>): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const record = node as Record<string, unknown>;
  if (record.__absolute_uri__ !== undefined) {
    if (record.$dynamicRef !== undefined)
      return '$dynamicRef is not supported where schemas are interpreted (no code generation): use $ref';
    const ref = record.__absolute_ref__;
    if (typeof ref === 'string' && !Object.hasOwn(lookup, ref))
      return `$ref ${JSON.stringify(record.$ref)} can't be resolved`;
    const recursive = record.__absolute_recursive_ref__;
    if (typeof recursive === 'string' && !Object.hasOwn(lookup, recursive))
      return `$recursiveRef ${JSON.stringify(record.$recursiveRef)} can't be resolved`;
  }
  for (const child of Object.values(record)) {
    const found = referenceProblem(child, lookup);
    if (found !== undefined) return found;
  }
  return undefined;
}

function toIssues(units: readonly OutputUnit[]): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  for (let i = 0; i < units.length; i++) {
    const unit = units[i] as OutputUnit;
    const base = pointerToPath(decodeLocation(unit.instanceLocation));
    if (unit.keyword === 'additionalProperties') {
      const next = units[i + 1];
      const property = quoted(unit.error);
      // `additionalProperties: false` reports a false-schema unit under it: one issue for both.
      if (next?.keyword === 'false' && property !== undefined) {
        issues.push(notAllowedIssue(base, property));
        i++;
      }
      continue;
    }
    if (WRAPPERS.has(unit.keyword)) continue;
    issues.push(toIssue(unit, base));
  }
  return uniqueIssues(issues);
}

function toIssue(unit: OutputUnit, base: string): ArgumentIssue {
  const { keyword, error } = unit;
  if (keyword === 'required') {
    const property = quoted(error);
    if (property !== undefined) return requiredIssue(base, property);
  }
  if (keyword === 'enum') {
    const allowed = listAfter(error, 'any of ');
    if (allowed !== undefined) return enumIssue(base, allowed);
  }
  if (keyword === 'type') {
    const expected = /Expected (.+)\.$/.exec(error)?.[1];
    if (expected !== undefined)
      return {
        argument: base,
        rule: 'type',
        message: `${subject(base)} must be ${expected.replaceAll('"', '')}`,
      };
  }
  if (keyword === 'format') {
    const format = quoted(error);
    if (format !== undefined)
      return { argument: base, rule: 'format', message: `${subject(base)} must match format "${format}"` };
  }
  if (keyword === 'false')
    return { argument: base, rule: 'false schema', message: `${subject(base)} is not allowed` };
  const words = error.replace(/\.$/, '');
  return { argument: base, rule: keyword, message: `${subject(base)} is invalid: ${lowerFirst(words)}` };
}

/** `#/user/items/2` (URI-encoded JSON pointer in a fragment) → `/user/items/2`. */
function decodeLocation(location: string): string {
  const pointer = location.startsWith('#') ? location.slice(1) : location;
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}

function quoted(text: string): string | undefined {
  return /"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
}

function listAfter(text: string, marker: string): unknown[] | undefined {
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(at + marker.length).replace(/\.$/, ''));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0]?.toLowerCase() + text.slice(1);
}
