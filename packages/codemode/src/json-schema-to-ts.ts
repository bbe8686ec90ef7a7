/** JSON Schema → TypeScript type text, for signatures a model can write code against. Never throws. */

export interface SchemaToTsOptions {
  /** Lay object types out one property per line, with descriptions as doc comments (default true). */
  multiline?: boolean;
  /** Indentation unit for multi-line output (default two spaces). */
  indent?: string;
  /** Nesting depth past which a type becomes `unknown` (default 8). */
  maxDepth?: number;
  /** Properties per object past which the rest are folded into an index signature (default 100). */
  maxProperties?: number;
  /** Schema that `$ref`s resolve against (default: the schema itself). */
  root?: unknown;
}

interface State {
  multiline: boolean;
  indent: string;
  maxDepth: number;
  maxProperties: number;
  root: unknown;
  refs: readonly string[];
}

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Keywords that say what a value is (as opposed to constraints on it). */
const SHAPE_KEYWORDS = [
  'type',
  'properties',
  'items',
  'prefixItems',
  'enum',
  'const',
  '$ref',
  'additionalProperties',
];

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasShape(schema: Schema): boolean {
  return SHAPE_KEYWORDS.some((key) => key in schema);
}

/** A JSON value as a TypeScript literal type, or `unknown` when it has none. */
function literal(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'number';
  if (typeof value === 'boolean' || value === null) return String(value);
  return 'unknown';
}

/** Whether a type text has a top-level `|` or `&` (so it needs parentheses inside `T[]`). */
function isCompound(text: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if ('{[(<'.includes(ch)) depth++;
    else if ('}])>'.includes(ch)) depth--;
    else if ((ch === '|' || ch === '&') && depth === 0) return true;
  }
  return false;
}

function join(parts: string[], separator: ' | ' | ' & '): string {
  const unique = [...new Set(parts)];
  if (unique.length === 0) return separator === ' | ' ? 'never' : 'unknown';
  if (separator === ' | ' && unique.includes('unknown')) return 'unknown';
  const kept = separator === ' & ' ? unique.filter((part) => part !== 'unknown') : unique;
  if (kept.length === 0) return 'unknown';
  if (kept.length === 1) return kept[0] as string;
  return kept.map((part) => (isCompound(part) ? `(${part})` : part)).join(separator);
}

/** Resolves a local `#/…` JSON pointer against the root schema. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Text of a doc comment for one property (description and the constraints a caller must meet). */
export function docComment(schema: unknown, indent = ''): string {
  if (!isSchemaObject(schema)) return '';
  const lines: string[] = [];
  if (typeof schema.description === 'string' && schema.description.trim() !== '') {
    lines.push(...schema.description.trim().split(/\r?\n/));
  }
  const tags: [string, unknown][] = [
    ['format', schema.format],
    ['default', schema.default],
    ['minimum', schema.minimum],
    ['maximum', schema.maximum],
    ['minLength', schema.minLength],
    ['maxLength', schema.maxLength],
    ['minItems', schema.minItems],
    ['maxItems', schema.maxItems],
    ['pattern', schema.pattern],
  ];
  for (const [tag, value] of tags) {
    if (value === undefined) continue;
    lines.push(`@${tag} ${typeof value === 'string' && tag !== 'default' ? value : JSON.stringify(value)}`);
  }
  if (schema.deprecated === true) lines.push('@deprecated');
  if (lines.length === 0) return '';
  const safe = lines.map((line) => line.replace(/\*\//g, '*\\/'));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} * ${line}`).join('\n')}\n${indent} */\n`;
}

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function objectType(schema: Schema, state: State, depth: number): string {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [],
  );
  const names = Object.keys(properties);
  const additional = schema.additionalProperties;
  const open = additional !== false;
  if (names.length === 0) {
    if (isSchemaObject(additional)) return `Record<string, ${convert(additional, state, depth + 1)}>`;
    return open ? 'Record<string, unknown>' : 'Record<string, never>';
  }
  const shown = names.slice(0, state.maxProperties);
  const pad = state.indent.repeat(depth + 1);
  const members = shown.map((name) => {
    const prop = properties[name];
    const optional = required.has(name) ? '' : '?';
    const type = convert(prop, state, depth + 1);
    const doc = state.multiline ? docComment(prop, pad) : '';
    return `${doc}${state.multiline ? pad : ''}${propertyKey(name)}${optional}: ${type};`;
  });
  // An index signature must admit every property's type, so it is `unknown` beside named ones.
  if (
    names.length > shown.length ||
    isSchemaObject(additional) ||
    (additional === true && names.length > 0)
  ) {
    members.push(`${state.multiline ? pad : ''}[key: string]: unknown;`);
  }
  if (!state.multiline) return `{ ${members.join(' ')} }`;
  return `{\n${members.join('\n')}\n${state.indent.repeat(depth)}}`;
}

function arrayType(schema: Schema, state: State, depth: number): string {
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  if (tuple !== undefined) return `[${tuple.map((item) => convert(item, state, depth + 1)).join(', ')}]`;
  if (schema.items === undefined || schema.items === true) return 'unknown[]';
  const element = convert(schema.items, state, depth + 1);
  return isCompound(element) ? `(${element})[]` : `${element}[]`;
}

function typeFor(name: unknown, schema: Schema, state: State, depth: number): string {
  switch (name) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, state, depth);
    case 'object':
      return objectType(schema, state, depth);
    default:
      return 'unknown';
  }
}

function shapeOf(schema: Schema, state: State, depth: number): string {
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return join(schema.enum.map(literal), ' | ');
  if (Array.isArray(schema.type))
    return join(
      schema.type.map((t) => typeFor(t, schema, state, depth)),
      ' | ',
    );
  if (typeof schema.type === 'string') return typeFor(schema.type, schema, state, depth);
  if (isSchemaObject(schema.properties) || schema.additionalProperties !== undefined) {
    return objectType(schema, state, depth);
  }
  if (schema.items !== undefined || schema.prefixItems !== undefined) return arrayType(schema, state, depth);
  return 'unknown';
}

function convert(schema: unknown, state: State, depth: number): string {
  if (schema === false) return 'never';
  if (!isSchemaObject(schema) || depth > state.maxDepth) return 'unknown';
  if (typeof schema.$ref === 'string') {
    if (state.refs.includes(schema.$ref)) return 'unknown';
    const target = resolvePointer(state.root, schema.$ref);
    if (target === undefined) return 'unknown';
    return convert(target, { ...state, refs: [...state.refs, schema.$ref] }, depth);
  }
  const parts: string[] = [];
  const own = hasShape(schema);
  if (own) parts.push(shapeOf(schema, state, depth));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    // Members that only constrain (e.g. `{required: [...]}`) refine the base shape, not replace it.
    if (own && !members.some((m) => isSchemaObject(m) && hasShape(m))) continue;
    const union = join(
      members.map((m) => convert(own && isSchemaObject(m) && !hasShape(m) ? {} : m, state, depth)),
      ' | ',
    );
    parts.push(union);
  }
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((m) => convert(m, state, depth)));
  let text = parts.length === 0 ? 'unknown' : join(parts, ' & ');
  if (schema.nullable === true && text !== 'unknown' && text !== 'null') text = join([text, 'null'], ' | ');
  return text;
}

/** The TypeScript type for a JSON Schema (objects, arrays, enums, unions, `$ref`s, primitives). */
export function jsonSchemaToTs(schema: unknown, options: SchemaToTsOptions = {}): string {
  const state: State = {
    multiline: options.multiline ?? true,
    indent: options.indent ?? '  ',
    maxDepth: options.maxDepth ?? 8,
    maxProperties: options.maxProperties ?? 100,
    root: options.root ?? schema,
    refs: [],
  };
  try {
    return convert(schema, state, 0);
  } catch {
    return 'unknown';
  }
}

export interface SchemaArg {
  name: string;
  tsType: string;
  optional: boolean;
}

/** The top-level properties of an argument schema as `{name, tsType, optional}` (one-line types). */
export function schemaArgs(schema: unknown): SchemaArg[] {
  try {
    let node: unknown = schema;
    if (isSchemaObject(node) && typeof node.$ref === 'string') node = resolvePointer(schema, node.$ref);
    if (!isSchemaObject(node) || !isSchemaObject(node.properties)) return [];
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    return Object.entries(node.properties).map(([name, prop]) => ({
      name,
      tsType: jsonSchemaToTs(prop, { multiline: false, root: schema }),
      optional: !required.has(name),
    }));
  } catch {
    return [];
  }
}
