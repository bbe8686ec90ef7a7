/** Code Mode exposure: the `search` and `execute` tools, and the one bridge every sandboxed operation call goes through. */
import type { CodeModeRunner } from '@agentd/codemode';
// The runtime-neutral half: the sandbox (Node-only) is loaded lazily by the Dispatcher.
import type { CallContext, OperationDescriptor } from '@agentd/codemode/tools';
import type { JsonObject } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import type { RegisteredOperation } from './catalogue.js';
import type { CompiledFilters } from './client-filters.js';
import { codeModeCaller } from './code-mode-caller.js';
import type { ToolDefinition } from './definitions.js';
import type { DispatchEnv } from './dispatch-env.js';
import { type HandlerContext, withSignal } from './handler-context.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import { requireCodeModeTools } from './optional-peers.js';
import { describeIssues } from './schema-compiler.js';
import { isInternalError, ToolResult } from './tool-result.js';

export interface CodeModeOptions {
  /** The sandbox pool; by default the dispatcher creates one on first `execute` and closes it in `close()`. */
  runner?: CodeModeRunner;
  /** The guest global carrying the API (default `api`). */
  namespace?: string;
  /** Most `search` results per call (default 50). */
  searchLimit?: number;
  /**
   * Which peers' executions go in the priority lane (never starved by restricted peers). Default:
   * every peer but an anonymous one. Pass the embedder's trust decision here.
   */
  priority?: (peer: Peer) => boolean;
}

export interface CodeModeWiring {
  tools: ToolDefinition[];
  /**
   * The `tools/list` entry of `search`/`execute` for a peer: descriptions naming only the operation
   * kinds it can use, with an example calling one of its operations (never one hidden from it).
   */
  entryFor(tool: { name: string; entry: JsonObject }): (filters: CompiledFilters) => JsonObject;
  close(): Promise<void>;
}

const descriptorCache = new WeakMap<RegisteredOperation, OperationDescriptor>();

function descriptorOf(op: RegisteredOperation): OperationDescriptor {
  let descriptor = descriptorCache.get(op);
  if (!descriptor) {
    const { kind, id, description, args, outputType } = op.definition;
    descriptor = {
      kind,
      id,
      description,
      args: args ?? { type: 'object' },
      outputType: outputType ?? 'unknown',
    };
    descriptorCache.set(op, descriptor);
  }
  return descriptor;
}

function visibleDescriptors(env: DispatchEnv, filters: CompiledFilters): OperationDescriptor[] {
  return env.catalogue
    .operationList()
    .filter((op) => filters.toolVisible(op.toolName))
    .map(descriptorOf);
}

export function createCodeMode(
  env: DispatchEnv,
  options: CodeModeOptions,
  createRunner: () => Promise<CodeModeRunner>,
): CodeModeWiring {
  const { createCodeModeTools, DEFAULT_NAMESPACE, searchOperations } =
    requireCodeModeTools("exposure: 'codemode'");
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const [searchTool, executeTool] = createCodeModeTools({ namespace });
  let runner: Promise<CodeModeRunner> | undefined = options.runner && Promise.resolve(options.runner);
  const owned = options.runner === undefined;

  const search: ToolDefinition = {
    ...searchTool,
    annotations: { readOnlyHint: true },
    handler: (args, context) => {
      const found = searchOperations(
        visibleDescriptors(env, env.filters(context.peer)),
        {
          ...(typeof args.query === 'string' ? { query: args.query } : {}),
          ...(typeof args.kind === 'string' ? { kind: args.kind } : {}),
        },
        { namespace, ...(options.searchLimit === undefined ? {} : { limit: options.searchLimit }) },
      );
      return { operations: found.results, truncated: found.truncated, total: found.total };
    },
  };

  const execute: ToolDefinition = {
    ...executeTool,
    handler: async (args, context) => {
      runner ??= createRunner();
      const filters = env.filters(context.peer);
      const caller = codeModeCaller(context.peer, options.priority);
      const outcome = await (await runner).execute({
        principal: caller.principal,
        priority: caller.priority,
        code: args.code as string,
        namespace,
        operations: visibleDescriptors(env, filters),
        call: (kind, id, callArgs, callContext) =>
          callOperation(env, filters, context, `${kind}_${id}`, callArgs, callContext),
        signal: context.signal,
      });
      const logs =
        outcome.logs.length > 0 ? [{ type: 'text', text: `Logs:\n${outcome.logs.join('\n')}` }] : [];
      if (!outcome.ok) {
        return new ToolResult({
          content: [{ type: 'text', text: `Error: ${outcome.error.message}` }, ...logs],
          isError: true,
          _meta: { 'dev.agentd/executeError': outcome.error.code },
        });
      }
      const structured: JsonObject = {
        result: outcome.value as JsonObject,
        logs: outcome.logs,
        truncated: outcome.truncated,
      };
      return new ToolResult({
        content: [{ type: 'text', text: JSON.stringify(outcome.value, null, 2) ?? 'null' }, ...logs],
        structuredContent: structured,
      });
    },
  };

  // Per operation list (a new array whenever operations change) and visible set: peers share entries.
  const written = new WeakMap<readonly RegisteredOperation[], Map<string, [JsonObject, JsonObject]>>();
  const describe = (filters: CompiledFilters): [JsonObject, JsonObject] => {
    const all = env.catalogue.operationList();
    let byVisible = written.get(all);
    if (byVisible === undefined) {
      byVisible = new Map();
      written.set(all, byVisible);
    }
    const visible = filters.permissive ? all : all.filter((op) => filters.toolVisible(op.toolName));
    const key = filters.permissive ? '*' : visible.map((op) => op.toolName).join('\n');
    let pair = byVisible.get(key);
    if (pair === undefined) {
      const [s, e] = createCodeModeTools({ namespace, operations: visible.map(descriptorOf) });
      pair = [
        { description: s.description, inputSchema: s.inputSchema },
        { description: e.description, inputSchema: e.inputSchema },
      ];
      // Bounded: distinct visible sets come from distinct filter rules, but stay safe.
      if (byVisible.size >= 256) byVisible.clear();
      byVisible.set(key, pair);
    }
    return pair;
  };

  return {
    tools: [search, execute],
    entryFor: (tool) => (filters) => ({
      ...tool.entry,
      ...describe(filters)[tool.name === 'search' ? 0 : 1],
    }),
    async close() {
      if (owned && runner) await (await runner).close();
    },
  };
}

/**
 * The bridge: filters are re-checked on `{kind}_{id}` for every call, arguments are validated
 * against the operation's schema, and the handler runs with the execution's signal.
 */
async function callOperation(
  env: DispatchEnv,
  filters: CompiledFilters,
  context: HandlerContext,
  name: string,
  rawArgs: unknown,
  callContext: CallContext,
): Promise<unknown> {
  const op = env.catalogue.operations.get(name);
  if (!op || !filters.toolVisible(name)) throw dispatchError('invalid_call', `Unknown operation: ${name}`);
  const args = rawArgs ?? {};
  if (!isJsonObject(args))
    throw dispatchError('invalid_call', `Invalid arguments for ${name}: arguments must be an object`);
  const refusal = filters.callRefusal(name, args);
  if (refusal !== undefined) throw dispatchError('invalid_call', refusal);
  const parsed = await op.tool.parse(args);
  if (!parsed.ok)
    throw dispatchError('invalid_call', `Invalid arguments for ${name}: ${describeIssues(parsed.issues)}`);
  try {
    const value = await op.tool.handler(parsed.value as JsonObject, withSignal(context, callContext.signal));
    return value instanceof ToolResult ? (value.result.structuredContent ?? value.result.content) : value;
  } catch (error) {
    if (!isInternalError(error)) throw error;
    env.logger.error('operation failed inside execute', {
      operation: name,
      error: error instanceof Error ? error.stack : String(error),
    });
    throw dispatchError('operation_failed', `Internal error in operation ${name}`);
  }
}
