/** The two tool definitions Code Mode advertises: `search` and `execute`, written against the operations served. */
import type { JsonObject } from '@agentd/rpc-frame';
import { checkNamespace, DEFAULT_NAMESPACE } from './namespace.js';
import { OPERATION_KINDS, type OperationDescriptor, type OperationKind } from './operation.js';

export interface CodeModeTool {
  name: 'search' | 'execute';
  description: string;
  inputSchema: JsonObject;
}

export interface CodeModeToolsOptions {
  namespace?: string;
  /**
   * The operations the caller can use: the descriptions then name only the kinds served, and the
   * example calls a real operation. Without it they speak of every kind and show no example.
   */
  operations?: readonly Pick<OperationDescriptor, 'kind' | 'id' | 'args'>[];
}

const PLURAL: Record<OperationKind, string> = {
  query: 'queries',
  view: 'views',
  report: 'reports',
  command: 'commands',
};

function servedKinds(operations: CodeModeToolsOptions['operations']): OperationKind[] {
  if (operations === undefined) return [...OPERATION_KINDS];
  return OPERATION_KINDS.filter((kind) => operations.some((op) => op.kind === kind));
}

function searchTool(namespace: string, kinds: readonly OperationKind[]): CodeModeTool {
  const listed = kinds.length > 0 ? ` (${kinds.map((kind) => PLURAL[kind]).join(', ')})` : '';
  return {
    name: 'search',
    description:
      `Find the operations${listed} this server offers; call it before \`execute\`. ` +
      'Every word of `query` must occur in an operation id or description (case-insensitive); `kind` narrows by kind. ' +
      `Each result has id, kind, description, args, outputType and a TypeScript \`signature\` showing how to call it as \`${namespace}.…\` in \`execute\`. ` +
      'Results are capped; `truncated` says when to search more narrowly.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to match against operation ids and descriptions.' },
        kind: {
          type: 'string',
          enum: kinds.length > 0 ? [...kinds] : [...OPERATION_KINDS],
          description: 'Restrict results to one operation kind.',
        },
      },
      required: [],
    },
  };
}

/** A placeholder for each required argument, so the example passes the operation's schema shape. */
function exampleArgs(args: JsonObject): string {
  const properties = (args.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(args.required) ? (args.required as unknown[]) : [];
  const parts = required
    .filter((name): name is string => typeof name === 'string' && /^[A-Za-z_$][\w$]*$/.test(name))
    .map((name) => {
      const type = properties[name]?.type;
      const value =
        type === 'number' || type === 'integer'
          ? '1'
          : type === 'boolean'
            ? 'true'
            : type === 'array'
              ? '[]'
              : type === 'object'
                ? '{}'
                : "'…'";
      return `${name}: ${value}`;
    });
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

/** An example over a real operation: a read-only one when there is one. */
function example(namespace: string, operations: CodeModeToolsOptions['operations']): string {
  if (operations === undefined || operations.length === 0) return '';
  const sorted = [...operations].sort((a, b) =>
    a.kind === b.kind
      ? a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0
      : OPERATION_KINDS.indexOf(a.kind) - OPERATION_KINDS.indexOf(b.kind),
  );
  const op = sorted.find((one) => one.kind !== 'command') ?? (sorted[0] as (typeof sorted)[number]);
  return `\nExample: const result = await ${namespace}.${op.kind}(${JSON.stringify(op.id)}, ${exampleArgs(op.args)}); return result;`;
}

function executeTool(
  namespace: string,
  kinds: readonly OperationKind[],
  operations: CodeModeToolsOptions['operations'],
): CodeModeTool {
  const [first, ...rest] = kinds.length > 0 ? kinds : OPERATION_KINDS;
  const others = rest.length > 0 ? ` (also ${rest.map((kind) => `.${kind}`).join(', ')})` : '';
  return {
    name: 'execute',
    description:
      "Run JavaScript in a sandbox against this server's operations, chaining many calls in one step. " +
      '`code` is the body of an async function: use `await` and `return` a JSON-serializable value (no return gives null). ' +
      `Call operations by the signatures from \`search\`, or generically \`await ${namespace}.${first}(id, args)\`${others}. ` +
      'A failed call throws an Error you can catch; Promise.all runs calls together. ' +
      'console.log lines come back as logs. There is no network, file system, timers, require or process. ' +
      'CPU time, wall time, memory and the number of calls are limited; large results are truncated.' +
      example(namespace, operations),
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'JavaScript async function body to run.' },
      },
      required: ['code'],
    },
  };
}

/** Both tool definitions written against a namespace (the one `execute` requests will use) and the operations served. */
export function createCodeModeTools(options: CodeModeToolsOptions = {}): [CodeModeTool, CodeModeTool] {
  const namespace = checkNamespace(options.namespace ?? DEFAULT_NAMESPACE);
  const kinds = servedKinds(options.operations);
  return [searchTool(namespace, kinds), executeTool(namespace, kinds, options.operations)];
}

export const SEARCH_TOOL: Readonly<CodeModeTool> = Object.freeze(
  searchTool(DEFAULT_NAMESPACE, OPERATION_KINDS),
);
export const EXECUTE_TOOL: Readonly<CodeModeTool> = Object.freeze(
  executeTool(DEFAULT_NAMESPACE, OPERATION_KINDS, undefined),
);
