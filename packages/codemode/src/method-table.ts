/** Maps operation ids onto typed API methods (`subagent.spawn` → `ns.subagent.spawn`), conflict-free. */
import type { OperationDescriptor } from './operation.js';
import { OPERATION_KINDS } from './operation.js';
import type { MethodEntry } from './worker-protocol.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Names a typed method may not take: the generic methods and keys with special meaning. */
const RESERVED_ROOT = new Set<string>([...OPERATION_KINDS]);
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor', 'then']);

/** Turns one id segment into an identifier (`3d-render` → `_3d_render`), or undefined if hopeless. */
function toIdentifier(segment: string): string | undefined {
  if (segment === '') return undefined;
  let name = segment.replace(/[^\w$]/g, '_');
  if (/^\d/.test(name)) name = `_${name}`;
  if (!IDENTIFIER.test(name) || FORBIDDEN.has(name)) return undefined;
  return name;
}

/** The method path of one id, before conflicts are resolved. */
export function methodPath(id: string): string[] | undefined {
  const path: string[] = [];
  for (const segment of id.split('.')) {
    const name = toIdentifier(segment);
    if (name === undefined) return undefined;
    path.push(name);
  }
  if (path.length === 0 || RESERVED_ROOT.has(path[0] as string)) return undefined;
  return path;
}

/**
 * One typed method per operation whose path is unambiguous. An operation left out (its path is
 * taken twice, e.g. a query and a view with the same id, or is also a namespace of other methods)
 * stays callable through `ns.<kind>(id, args)`.
 */
export function buildMethodTable(operations: readonly OperationDescriptor[]): MethodEntry[] {
  const byKey = new Map<string, MethodEntry[]>();
  for (const op of operations) {
    const path = methodPath(op.id);
    if (path === undefined) continue;
    const key = path.join('.');
    const list = byKey.get(key) ?? [];
    list.push({ path, kind: op.kind, id: op.id });
    byKey.set(key, list);
  }
  const prefixes = new Set<string>();
  for (const key of byKey.keys()) {
    const parts = key.split('.');
    for (let i = 1; i < parts.length; i++) prefixes.add(parts.slice(0, i).join('.'));
  }
  const table: MethodEntry[] = [];
  for (const [key, list] of byKey) {
    if (list.length !== 1 || prefixes.has(key)) continue;
    table.push(list[0] as MethodEntry);
  }
  return table;
}
