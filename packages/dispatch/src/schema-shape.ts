/**
 * Registration-time check of a schema's shape without code generation (ajv's meta-schema check
 * compiles code, which workerd forbids): the keywords people get wrong have the right kinds of
 * values. (References are checked where they are resolved, in schema-interpreter.) Returns the
 * first problem, in words.
 */
import { isJsonObject } from './json.js';

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const ONE_SCHEMA = [
  'additionalProperties',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const COUNTS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
] as const;
const NUMBERS = ['minimum', 'maximum', 'multipleOf'] as const;

type Schema = Record<string, unknown> | boolean;

export function schemaShapeProblem(root: Schema): string | undefined {
  return problemAt(root, '');
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'boolean' || isJsonObject(value);
}

function at(path: string, key: string): string {
  return path === '' ? key : `${path}/${key}`;
}

function problemAt(node: unknown, path: string): string | undefined {
  const where = path === '' ? 'the schema' : path;
  if (!isSchema(node)) return `${where} must be an object or a boolean`;
  if (typeof node === 'boolean') return undefined;
  return keywordProblem(node, path) ?? refProblem(node, path) ?? childProblem(node, path);
}

function keywordProblem(node: Record<string, unknown>, path: string): string | undefined {
  const { type, required, enum: values, pattern } = node;
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type];
    if (list.length === 0 || list.some((t) => typeof t !== 'string' || !TYPES.has(t)))
      return `${at(path, 'type')} must be one of ${[...TYPES].join(', ')} (or a list of them)`;
  }
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string')))
    return `${at(path, 'required')} must be a list of property names`;
  if (values !== undefined && !Array.isArray(values)) return `${at(path, 'enum')} must be a list`;
  for (const key of COUNTS) {
    const value = node[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0))
      return `${at(path, key)} must be a non-negative integer`;
  }
  for (const key of NUMBERS) {
    if (node[key] !== undefined && typeof node[key] !== 'number') return `${at(path, key)} must be a number`;
  }
  if (typeof node.multipleOf === 'number' && node.multipleOf <= 0)
    return `${at(path, 'multipleOf')} must be > 0`;
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') return `${at(path, 'pattern')} must be a string`;
    try {
      new RegExp(pattern, 'u');
    } catch {
      return `${at(path, 'pattern')} is not a valid regular expression`;
    }
  }
  return undefined;
}

function refProblem(node: Record<string, unknown>, path: string): string | undefined {
  for (const key of ['$ref', '$dynamicRef', '$recursiveRef']) {
    const ref = node[key];
    if (ref === undefined) continue;
    if (typeof ref !== 'string') return `${at(path, key)} must be a string`;
  }
  return undefined;
}

function childProblem(node: Record<string, unknown>, path: string): string | undefined {
  for (const key of ONE_SCHEMA) {
    if (node[key] !== undefined) {
      const found = problemAt(node[key], at(path, key));
      if (found !== undefined) return found;
    }
  }
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (map === undefined) continue;
    if (!isJsonObject(map)) return `${at(path, key)} must be an object of schemas`;
    for (const [name, child] of Object.entries(map)) {
      const found = problemAt(child, at(at(path, key), name));
      if (found !== undefined) return found;
    }
  }
  const items = node.items;
  const lists: [string, unknown][] = SCHEMA_LISTS.map((key) => [key, node[key]]);
  if (Array.isArray(items)) lists.push(['items', items]);
  else if (items !== undefined) {
    const found = problemAt(items, at(path, 'items'));
    if (found !== undefined) return found;
  }
  for (const [key, list] of lists) {
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0)
      return `${at(path, key)} must be a non-empty list of schemas`;
    for (const [index, child] of list.entries()) {
      const found = problemAt(child, at(at(path, key), String(index)));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
