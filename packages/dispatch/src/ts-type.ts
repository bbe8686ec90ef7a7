/** Renders a JSON Schema as a compact TypeScript type string for the operation index. */
import { isJsonObject } from './json.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function schemaToTsType(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isJsonObject(schema) || depth > 6) return 'unknown';
  if ('const' in schema) return JSON.stringify(schema.const) ?? 'unknown';
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v) ?? 'null'));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return union(options.map((o) => schemaToTsType(o, depth + 1)));
  }
  const type = schema.type;
  if (Array.isArray(type)) return union(type.map((t) => schemaToTsType({ ...schema, type: t }, depth + 1)));
  switch (type) {
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
      return arrayType(schema.items, depth);
    case 'object':
      return objectType(schema, depth);
    default:
      return isJsonObject(schema.properties) ? objectType(schema, depth) : 'unknown';
  }
}

function arrayType(items: unknown, depth: number): string {
  const inner = schemaToTsType(items, depth + 1);
  return inner.includes(' ') ? `Array<${inner}>` : `${inner}[]`;
}

function objectType(schema: Record<string, unknown>, depth: number): string {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const members = Object.entries(properties).map(([name, child]) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    return `${key}${required.has(name) ? '' : '?'}: ${schemaToTsType(child, depth + 1)}`;
  });
  if (members.length === 0) return 'Record<string, unknown>';
  return `{ ${members.join('; ')} }`;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}
