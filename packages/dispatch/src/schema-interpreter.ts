/**
 * JSON Schema validation without code generation, for runtimes that forbid `new Function`
 * (Cloudflare Workers): @cfworker/json-schema walks the schema on each call. Its output units
 * become the same ArgumentIssues (and texts) as the compiled path's.
 */
import { type OutputUnit, type SchemaDraft, Validator } from '@cfworker/json-schema';
import {
  type ArgumentIssue,
  enumIssue,
  notAllowedIssue,
  pointerToPath,
  requiredIssue,
  subject,
  uniqueIssues,
} from './argument-issue.js';

export type InterpretedValidator = (value: unknown) => ArgumentIssue[] | undefined;

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

export function interpretSchema(
  schema: Record<string, unknown> | boolean,
  dialect: '2020-12' | 'draft-07',
): InterpretedValidator {
  const draft: SchemaDraft = dialect === 'draft-07' ? '7' : '2020-12';
  // The third argument turns short-circuiting off: every failure, as ajv's allErrors gives.
  // It annotates the schema it walks (`__absolute_uri__`, …): give it a copy, the published one is frozen.
  const validator = new Validator(structuredClone(schema) as never, draft, false);
  return (value) => {
    const result = validator.validate(value);
    return result.valid ? undefined : toIssues(result.errors);
  };
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
