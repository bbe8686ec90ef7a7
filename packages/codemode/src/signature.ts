/** TypeScript declarations of operations as the guest sees them (`ns.subagent.spawn(args)`). */
import { docComment, jsonSchemaToTs } from './json-schema-to-ts.js';
import { buildMethodTable } from './method-table.js';
import type { OperationDescriptor } from './operation.js';
import { OPERATION_KINDS } from './operation.js';
import type { MethodEntry } from './worker-protocol.js';

const INDENT = '  ';

function indentLines(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}

function hasRequired(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const required = (schema as { required?: unknown }).required;
  return Array.isArray(required) && required.length > 0;
}

/** The parameter list for an operation's arguments; optional when nothing is required. */
function argsParameter(op: OperationDescriptor): string {
  const type = jsonSchemaToTs(op.args);
  return `args${hasRequired(op.args) ? '' : '?'}: ${type}`;
}

function outputOf(op: OperationDescriptor): string {
  const type = typeof op.outputType === 'string' ? op.outputType.trim() : '';
  return type === '' ? 'unknown' : type;
}

/**
 * The declaration of one operation: a typed method when it has one, else an overload of the
 * generic `ns.<kind>(id, args)` with the id as a literal type.
 */
export function operationSignature(op: OperationDescriptor, namespace: string, method?: MethodEntry): string {
  const doc = docComment({ description: op.description }, INDENT);
  const output = `Promise<${outputOf(op)}>`;
  if (method !== undefined) {
    const owner = [namespace, ...method.path.slice(0, -1)].join('.');
    const name = method.path[method.path.length - 1] as string;
    const fn = `function ${name}(${argsParameter(op)}): ${output};`;
    return `declare namespace ${owner} {\n${doc}${indentLines(fn, INDENT)}\n}`;
  }
  const fn = `function ${op.kind}(id: ${JSON.stringify(op.id)}, ${argsParameter(op)}): ${output};`;
  return `declare namespace ${namespace} {\n${doc}${indentLines(fn, INDENT)}\n}`;
}

/** Signatures for many operations at once, resolving typed-method conflicts across the whole set. */
export function operationSignatures(
  operations: readonly OperationDescriptor[],
  namespace: string,
): Map<OperationDescriptor, string> {
  const table = buildMethodTable(operations);
  const byOp = new Map<string, MethodEntry>(table.map((entry) => [`${entry.kind}\u0000${entry.id}`, entry]));
  const out = new Map<OperationDescriptor, string>();
  for (const op of operations)
    out.set(op, operationSignature(op, namespace, byOp.get(`${op.kind}\u0000${op.id}`)));
  return out;
}

/** A complete declaration file for the guest API: the generic methods plus every operation. */
export function apiDeclarations(operations: readonly OperationDescriptor[], namespace: string): string {
  const generic = OPERATION_KINDS.map(
    (kind) => `${INDENT}function ${kind}(id: string, args?: Record<string, unknown>): Promise<unknown>;`,
  ).join('\n');
  const parts = [`declare namespace ${namespace} {\n${generic}\n}`];
  for (const signature of operationSignatures(operations, namespace).values()) parts.push(signature);
  return `${parts.join('\n\n')}\n`;
}
