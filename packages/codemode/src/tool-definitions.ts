/** The two tool definitions Code Mode advertises: `search` and `execute`. */
import type { JsonObject } from '@agentd/rpc-frame';
import { checkNamespace, DEFAULT_NAMESPACE } from './namespace.js';

export interface CodeModeTool {
  name: 'search' | 'execute';
  description: string;
  inputSchema: JsonObject;
}

function searchTool(namespace: string): CodeModeTool {
  return {
    name: 'search',
    description:
      'Find the operations (queries, views, reports, commands) this server offers; call it before `execute`. ' +
      'Every word of `query` must occur in an operation id or description (case-insensitive); `kind` narrows by kind. ' +
      `Each result has id, kind, description, args, outputType and a TypeScript \`signature\` showing how to call it as \`${namespace}.…\` in \`execute\`. ` +
      'Results are capped; `truncated` says when to search more narrowly.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to match against operation ids and descriptions.' },
        kind: {
          type: 'string',
          enum: ['query', 'view', 'report', 'command'],
          description: 'Restrict results to one operation kind.',
        },
      },
      required: [],
    },
  };
}

function executeTool(namespace: string): CodeModeTool {
  return {
    name: 'execute',
    description:
      "Run JavaScript in a sandbox against this server's operations, chaining many calls in one step. " +
      '`code` is the body of an async function: use `await` and `return` a JSON-serializable value (no return gives null). ' +
      `Call operations by the signatures from \`search\`, e.g. \`await ${namespace}.subagent.spawn({...})\`, ` +
      `or generically \`await ${namespace}.query(id, args)\` (also .view, .report, .command). ` +
      'A failed call throws an Error you can catch; Promise.all runs calls together. ' +
      'console.log lines come back as logs. There is no network, file system, timers, require or process. ' +
      'CPU time, wall time, memory and the number of calls are limited; large results are truncated.\n' +
      `Example: const items = await ${namespace}.query('servers.list', {}); return items.filter((s) => s.up).map((s) => s.name);`,
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'JavaScript async function body to run.' },
      },
      required: ['code'],
    },
  };
}

/** Both tool definitions written against a namespace (the one `execute` requests will use). */
export function createCodeModeTools(options: { namespace?: string } = {}): [CodeModeTool, CodeModeTool] {
  const namespace = checkNamespace(options.namespace ?? DEFAULT_NAMESPACE);
  return [searchTool(namespace), executeTool(namespace)];
}

export const SEARCH_TOOL: Readonly<CodeModeTool> = Object.freeze(searchTool(DEFAULT_NAMESPACE));
export const EXECUTE_TOOL: Readonly<CodeModeTool> = Object.freeze(executeTool(DEFAULT_NAMESPACE));
