/** TypeScript declarations of operations as the guest sees them (`ns.subagent.spawn(args)`). */
import { docComment, jsonSchemaToTs } from './json-schema-to-ts.js';
import type { OperationDescriptor } from './operation.js';
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
