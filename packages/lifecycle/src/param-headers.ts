/** `x-mcp-header` tool parameters mirrored as `Mcp-Param-{Name}` headers (2026-07-28, SEP-2243). */

import { isJsonObject } from '@agentd/rpc-frame';
import { decodeHeaderValue } from './header-value.js';
import type { HeaderReader } from './http-post-route.js';
import { type Refusal, refuse } from './refusals.js';

export interface ParamHeader {
  /** The header name suffix: `Region` → `Mcp-Param-Region`. */
  readonly name: string;
  /** Property path inside `arguments`, e.g. `['options', 'region']`. */
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Finds `x-mcp-header` annotations on primitive properties reachable through `properties`
 * chains of a tool's input schema. Invalid annotations are skipped (clients drop such tools).
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const walk = (schema: unknown, path: string[]) => {
    if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isJsonObject(property)) continue;
      const name = property['x-mcp-header'];
      const type = property.type;
      if (
        typeof name === 'string' &&
        TOKEN.test(name) &&
        (type === 'string' || type === 'integer' || type === 'boolean')
      ) {
        found.push({ name, path: [...path, key], type });
      }
      walk(property, [...path, key]);
    }
  };
  walk(inputSchema, []);
  const seen = new Set<string>();
  return found.filter((h) => {
    const lower = h.name.toLowerCase();
    if (seen.has(lower)) return false;
    seen.add(lower);
    return true;
  });
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let current = args;
  for (const key of path) {
    if (!isJsonObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function matches(header: string, value: unknown, type: ParamHeader['type']): boolean {
  if (type === 'string') return header === value;
  if (type === 'boolean') return header === String(value);
  return typeof value === 'number' && header.trim() !== '' && Number(header) === value;
}

/** -32020 when a mirrored parameter's header is missing, malformed or unequal to the body value. */
export function checkParamHeaders(
  headers: readonly ParamHeader[],
  args: unknown,
  requestHeaders: HeaderReader,
): Refusal | undefined {
  for (const param of headers) {
    const label = `Mcp-Param-${param.name}`;
    const raw = requestHeaders.get(label.toLowerCase());
    const value = valueAt(args, param.path);
    const present = value !== undefined && value !== null;
    if (raw === null) {
      if (present) return refuse.headerMissing(label);
      continue;
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return refuse.headerInvalid(label);
    if (!present || !matches(decoded, value, param.type)) return refuse.paramHeaderDiffers(label);
  }
  return undefined;
}
