/**
 * A validator for the schema most tools have: an object of named primitive properties with the
 * common constraints. It is checked and built without a validator package (no ajv load, no code
 * generation, no meta-schema compile at startup) and reports what ajv would, in ajv's order and
 * words, so the two paths are indistinguishable to a client. Any other schema returns undefined
 * and takes the general path.
 */
import {
  type ArgumentIssue,
  enumIssue,
  notAllowedIssue,
  requiredIssue,
  subject,
  uniqueIssues,
} from './argument-issue.js';
import { isJsonObject } from './json.js';

type Validator = (value: unknown) => ArgumentIssue[] | undefined;
type Rule = (value: unknown, path: string, issues: ArgumentIssue[]) => void;
type Primitive = 'string' | 'number' | 'integer' | 'boolean' | 'null';

/** Keywords that only describe: ajv ignores them when validating. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$comment',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const ROOT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', '$schema']);
const PRIMITIVES = new Set<string>(['string', 'number', 'integer', 'boolean', 'null']);
const NUMBER_LIMITS = ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum'] as const;
const LIMIT_WORDS: Record<(typeof NUMBER_LIMITS)[number], string> = {
  maximum: '<=',
  minimum: '>=',
  exclusiveMaximum: '<',
  exclusiveMinimum: '>',
};

interface Property {
  readonly name: string;
  /** The argument path ajv's instancePath becomes. */
  readonly path: string;
  readonly check: Rule;
}

/**
 * A validator for `schema` when it is flat and well-formed, else undefined. The schema is checked
 * now, so a bad one fails at registration; its rules are built on the first validation, so a
 * catalogue of tools costs at startup only the checking.
 */
export function flatSchemaValidator(schema: Record<string, unknown> | boolean): Validator | undefined {
  if (typeof schema === 'boolean' || schema.type !== 'object') return undefined;
  for (const key in schema) {
    if (!ROOT_KEYWORDS.has(key) && !ANNOTATIONS.has(key)) return undefined;
    if (key === '$schema' && typeof schema[key] !== 'string') return undefined;
  }
  const { properties = {}, required = [], additionalProperties = true } = schema;
  if (!isJsonObject(properties) || typeof additionalProperties !== 'boolean') return undefined;
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) return undefined;
  for (const name in properties) if (!isFlatProperty(properties[name])) return undefined;
  const requiredNames = required as string[];
  let compiled: Property[] | undefined;
  let known: Set<string> | undefined;
  return (value) => {
    if (!isJsonObject(value))
      return [{ argument: '', rule: 'type', message: `${subject('')} must be object` }];
    compiled ??= compileProperties(properties);
    const issues: ArgumentIssue[] = [];
    for (const name of requiredNames) if (value[name] === undefined) issues.push(requiredIssue('', name));
    if (!additionalProperties) {
      known ??= new Set(Object.keys(properties));
      for (const key in value) if (!known.has(key)) issues.push(notAllowedIssue('', key));
    }
    for (const property of compiled) {
      const argument = value[property.name];
      if (argument !== undefined) property.check(argument, property.path, issues);
    }
    return issues.length === 0 ? undefined : uniqueIssues(issues);
  };
}

function compileProperties(properties: Record<string, unknown>): Property[] {
  const compiled: Property[] = [];
  // The same keys, in the same order, as the registration check walked.
  for (const name in properties) {
    // What pointerToPath makes of ajv's instancePath for a top-level property.
    compiled.push({
      name,
      path: /^\d+$/.test(name) ? `[${name}]` : name,
      check: propertyCheck(properties[name]),
    });
  }
  return compiled;
}

/** A property schema of one primitive type whose keywords are all well-formed and understood here. */
function isFlatProperty(schema: unknown): boolean {
  if (!isJsonObject(schema) || typeof schema.type !== 'string' || !PRIMITIVES.has(schema.type)) return false;
  const type = schema.type;
  const allowed =
    type === 'string'
      ? STRING_KEYWORDS
      : type === 'number' || type === 'integer'
        ? NUMBER_KEYWORDS
        : BASE_KEYWORDS;
  for (const key in schema) {
    if (ANNOTATIONS.has(key)) continue;
    if (!allowed.has(key) || !wellFormed(key, schema[key])) return false;
  }
  return true;
}

/** The checks of a flat property (see isFlatProperty), in ajv's order: const and enum, then the type's own keywords. */
function propertyCheck(child: unknown): Rule {
  const schema = child as Record<string, unknown>;
  const type = schema.type as Primitive;
  const rules: Rule[] = [];
  const typeIssue = (path: string): ArgumentIssue => issueAt(path, 'type', `must be ${type}`);
  const grouped = Object.keys(schema).some((key) => GROUP_KEYWORDS.has(key));
  // ajv checks a type inside its keyword group (after const and enum) only for `string` and
  // `number` schemas that use that group; every other type is checked first.
  const typeInGroup = grouped && (type === 'string' || type === 'number');
  if (!typeInGroup) {
    rules.push((value, path, issues) => {
      if (!isType(value, type)) issues.push(typeIssue(path));
    });
  }
  if ('const' in schema) {
    const expected = JSON.stringify(schema.const);
    rules.push((value, path, issues) => {
      if (JSON.stringify(value) !== expected)
        issues.push(issueAt(path, 'const', 'must be equal to constant'));
    });
  }
  if (Array.isArray(schema.enum)) {
    const options = schema.enum as unknown[];
    rules.push((value, path, issues) => {
      if (!options.includes(value)) issues.push(enumIssue(path, options));
    });
  }
  if (grouped) {
    const onOtherType = typeInGroup ? typeIssue : undefined;
    rules.push(type === 'string' ? stringRules(schema, onOtherType) : numberRules(schema, onOtherType));
  }
  if (rules.length === 1) return rules[0] as Rule;
  return (value, path, issues) => {
    for (const rule of rules) rule(value, path, issues);
  };
}

function isType(value: unknown, type: Primitive): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

const BASE_KEYWORDS = new Set(['type', 'const', 'enum']);
const GROUP_KEYWORDS = new Set(['minLength', 'maxLength', 'pattern', ...NUMBER_LIMITS, 'multipleOf']);
const STRING_KEYWORDS = new Set([...BASE_KEYWORDS, 'minLength', 'maxLength', 'pattern']);
const NUMBER_KEYWORDS = new Set([...BASE_KEYWORDS, ...NUMBER_LIMITS, 'multipleOf']);

function wellFormed(key: string, value: unknown): boolean {
  switch (key) {
    case 'type':
      return true;
    case 'const':
      return value === null || ['string', 'number', 'boolean'].includes(typeof value);
    case 'enum':
      return (
        Array.isArray(value) &&
        value.length > 0 &&
        value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item))
      );
    case 'minLength':
    case 'maxLength':
      return Number.isInteger(value) && (value as number) >= 0;
    case 'pattern':
      return typeof value === 'string' && compiles(value);
    case 'multipleOf':
      return typeof value === 'number' && value > 0;
    default:
      return typeof value === 'number' && Number.isFinite(value);
  }
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The string group: runs on strings; `onOtherType` reports any other value when the type is checked here. */
function stringRules(
  schema: Record<string, unknown>,
  onOtherType: ((path: string) => ArgumentIssue) | undefined,
): Rule {
  const { maxLength, minLength, pattern } = schema as {
    maxLength?: number;
    minLength?: number;
    pattern?: string;
  };
  const regexp = pattern === undefined ? undefined : new RegExp(pattern, 'u');
  return (value, path, issues) => {
    if (typeof value !== 'string') {
      if (onOtherType !== undefined) issues.push(onOtherType(path));
      return;
    }
    if (maxLength !== undefined || minLength !== undefined) {
      const length = codePoints(value);
      if (maxLength !== undefined && length > maxLength)
        issues.push(issueAt(path, 'maxLength', `must NOT have more than ${maxLength} characters`));
      if (minLength !== undefined && length < minLength)
        issues.push(issueAt(path, 'minLength', `must NOT have fewer than ${minLength} characters`));
    }
    if (regexp !== undefined && !regexp.test(value))
      issues.push(issueAt(path, 'pattern', `must match pattern "${pattern}"`));
  };
}

/** The number group: runs on every number (an `integer` schema's non-integers too, as in ajv). */
function numberRules(
  schema: Record<string, unknown>,
  onOtherType: ((path: string) => ArgumentIssue) | undefined,
): Rule {
  const limits = NUMBER_LIMITS.filter((keyword) => typeof schema[keyword] === 'number').map(
    (keyword) => [keyword, schema[keyword] as number] as const,
  );
  const multipleOf = schema.multipleOf as number | undefined;
  return (value, path, issues) => {
    if (typeof value !== 'number') {
      if (onOtherType !== undefined) issues.push(onOtherType(path));
      return;
    }
    for (const [keyword, limit] of limits) {
      if (!withinLimit(keyword, value, limit))
        issues.push(issueAt(path, keyword, `must be ${LIMIT_WORDS[keyword]} ${limit}`));
    }
    if (multipleOf !== undefined) {
      const ratio = value / multipleOf;
      if (ratio !== Number.parseInt(String(ratio), 10))
        issues.push(issueAt(path, 'multipleOf', `must be multiple of ${multipleOf}`));
    }
  };
}

function withinLimit(keyword: (typeof NUMBER_LIMITS)[number], value: number, limit: number): boolean {
  if (keyword === 'maximum') return value <= limit;
  if (keyword === 'minimum') return value >= limit;
  if (keyword === 'exclusiveMaximum') return value < limit;
  return value > limit;
}

/** String length as ajv counts it: in code points, not UTF-16 units. */
function codePoints(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

function issueAt(path: string, rule: string, words: string): ArgumentIssue {
  return { argument: path, rule, message: `${subject(path)} ${words}` };
}
