/** The self-MCP: agentd's operations and resources registered on a dispatch Dispatcher, with trust filters. */
import { CodeModeRunner, type ExecuteOutcome, type ExecuteRequest } from '@agentd/codemode';
import { Dispatcher, type Middleware, type SurfaceKind, type TaskStatusEvent } from '@agentd/dispatch';
import { registerAppResource } from '@agentd/dispatch/apps';
import { refuse } from '@agentd/lifecycle';
import { appToolMeta } from '@agentd/lifecycle/apps';
import type { Logger } from '@agentd/rpc-frame';
import { type JsonObject, LocalError } from '@agentd/rpc-frame';
import type { Handler, Peer } from '@agentd/server';
import type { TaskStore } from '@agentd/tasks';
import type { CodeModeLimitsConfig, Exposure } from '../config/config-schema.js';
import { RUNS_APP_URI, runsPage } from '../ui/runs-page.js';
import { parseAgentUri } from './agent-uri.js';
import { refuseAnonymousTasks } from './anonymous-tasks.js';
import { filterName, type OperationSpec } from './operation-spec.js';
import {
  checkSubscribable,
  RESOURCE_SPECS,
  ResourceError,
  type ResourceHost,
  readResource,
} from './resources.js';
import { filtersByTrust, trustOf } from './trust.js';

export interface SelfMcp {
  readonly handler: Handler;
  /** Re-registers operations whose schema depends on the config (agent names); dispatch debounces list_changed. */
  refreshOperations(): void;
  onSurfaceChanged(listener: (kinds: readonly SurfaceKind[]) => void): void;
  /** Task status changes (spawn tasks), to deliver with `core.notifyTaskStatus`. */
  onTaskStatus(listener: (event: TaskStatusEvent) => void): void;
  /** Operations this peer can see (for agent://capabilities). */
  visibleOperations(peer: Peer): OperationSpec[];
  /** Code Mode's execution queue (undefined with classic exposure). */
  codeModeStats(): { queued: number; running: number } | undefined;
  close(): Promise<void>;
}

/** Listed on every resource and template, so clients know before trying whether they can subscribe. */
const SUBSCRIBABLE_META = 'dev.agentd/subscribable';

export interface SelfMcpOptions {
  exposure: Exposure;
  /** Wall-clock limit of one `execute` (sync spawns inside it wait for their run). */
  codeModeWallMs: number;
  codeModeLimits: CodeModeLimitsConfig;
  operations: () => OperationSpec[];
  resources: ResourceHost;
  logger: Logger;
  /** Sees every Code Mode execution's outcome (metrics). */
  onExecuted?: (outcome: ExecuteOutcome) => void;
  /** Where spawn tasks live (a fleet shares one, so `tasks/get` works on every replica). Default: memory. */
  taskStore?: TaskStore;
  /** The MRTR requestState HMAC key (a fleet shares one). Default: random per process. */
  requestStateKey?: string;
  /**
   * OAuth scopes per operation (`{kind}_{id}`, config `auth.operationScopes`): a token without them
   * neither sees nor calls the operation. Peers without an OAuth token are exempt (dispatch's default).
   */
  operationScopes?: Readonly<Record<string, readonly string[]>>;
  /** Answer a call hidden only by scopes with 403 insufficient_scope (config `auth.oauth.stepUp`). */
  stepUp?: boolean;
}

/** The Code Mode runner with each outcome reported, so metrics need nothing from dispatch. */
class ObservedRunner extends CodeModeRunner {
  constructor(
    options: ConstructorParameters<typeof CodeModeRunner>[0],
    private readonly observe: ((outcome: ExecuteOutcome) => void) | undefined,
  ) {
    super(options);
  }

  override async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    const outcome = await super.execute(request);
    this.observe?.(outcome);
    return outcome;
  }
}

/**
 * Supervisor refusals are rethrown with their code in the text: dispatch turns a thrown error into
 * an isError result (classic tools) or an exception the sandboxed code can catch (Code Mode).
 */
function refusal(error: LocalError): LocalError {
  return new LocalError(error.code, `${error.message} (${error.code})`, { cause: error });
}

/** The classic tools that start or show a run, which hosts render with the runs page. */
const RUNS_APP_TOOLS: ReadonlySet<string> = new Set(['command_subagent.spawn', 'query_subagent.status']);

/**
 * Links the spawn and status tools to the runs page in `tools/list` (`_meta.ui.resourceUri`).
 * Operations carry no `_meta` of their own in dispatch, so the link is added to the listed entries.
 */
const linkRunsApp: Middleware = async (ctx, next) => {
  const result = await next();
  if (ctx.method !== 'tools/list' || !Array.isArray(result.tools)) return result;
  const tools = (result.tools as JsonObject[]).map((tool) =>
    RUNS_APP_TOOLS.has(String(tool.name))
      ? { ...tool, _meta: appToolMeta({ resourceUri: RUNS_APP_URI }, (tool._meta ?? {}) as JsonObject) }
      : tool,
  );
  return { ...result, tools };
};

/** The runs page as an MCP App (when the package was built with it): listed in both exposures. */
function registerRunsApp(dispatcher: Dispatcher, exposure: Exposure): void {
  const page = runsPage();
  if (page === undefined) return;
  registerAppResource(dispatcher, {
    uri: RUNS_APP_URI,
    name: 'agentd-runs',
    title: 'agentd runs',
    description:
      "agentd's runs, live: state, streamed output, result; cancel and spawn where the peer may. Talks to agentd only through the host.",
    html: page.html,
    // No external origin at all: the page is self-contained and reaches agentd through the host.
    ui: {
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
      prefersBorder: true,
    },
    cache: { ttlMs: 3_600_000, cacheScope: 'public' },
  });
  if (exposure === 'classic') dispatcher.use(linkRunsApp);
}

function json(uri: string, body: JsonObject) {
  return { uri, mimeType: 'application/json', text: JSON.stringify(body) };
}

export function createSelfMcp(options: SelfMcpOptions): SelfMcp {
  let operations = options.operations();
  let filters = filtersByTrust(operations);
  // Our own runner: the sandbox default wall time (30 s) would cut every longer sync spawn short.
  // One config object, two consumers: the sandbox limits and the runner's fair scheduling.
  const {
    maxRunningPerPrincipal: _a,
    maxQueuedPerPrincipal: _b,
    maxQueueWaitMs: _c,
    priorityWorkers: _d,
    ...limits
  } = options.codeModeLimits;
  const {
    cpuMs: _e,
    memoryBytes: _f,
    maxCalls: _g,
    maxResultBytes: _h,
    maxLogLines: _i,
    ...fairness
  } = options.codeModeLimits;
  const runner =
    options.exposure === 'codemode'
      ? new ObservedRunner(
          { ...fairness, limits: { ...limits, wallMs: options.codeModeWallMs } },
          options.onExecuted,
        )
      : undefined;
  const dispatcher = new Dispatcher({
    exposure: options.exposure,
    // Management callers' executions get the priority lane: restricted peers cannot starve them.
    ...(runner === undefined
      ? {}
      : {
          codeMode: { runner, namespace: 'agentd', priority: (peer: Peer) => trustOf(peer) === 'management' },
        }),
    filtersFor: (peer: Peer) => filters[trustOf(peer)],
    schemaScheme: 'agent',
    logger: options.logger,
    ...(options.taskStore === undefined ? {} : { tasks: { store: options.taskStore } }),
    ...(options.requestStateKey === undefined ? {} : { requestState: { key: options.requestStateKey } }),
    ...(options.stepUp === true ? { stepUp: true } : {}),
  });
  const scopesOf = (spec: OperationSpec): readonly string[] | undefined => {
    const scopes = options.operationScopes?.[filterName(spec)];
    return scopes === undefined || scopes.length === 0 ? undefined : scopes;
  };

  const register = (spec: OperationSpec) => {
    const requiredScopes = scopesOf(spec);
    dispatcher.registerOperation({
      kind: spec.kind,
      id: spec.id,
      description: spec.description,
      args: spec.args,
      outputType: spec.outputType,
      ...(requiredScopes === undefined ? {} : { requiredScopes }),
      ...(spec.taskTtlMs === undefined
        ? {}
        : { task: { support: 'optional', start: 'handler', ttlMs: spec.taskTtlMs } as const }),
      handler: async (args, context) => {
        try {
          return await spec.handler(args as JsonObject, {
            peer: context.peer,
            // A getter: after detach() the context's signal is the task's, not the request's.
            get signal() {
              return context.signal;
            },
            progress: (progress, total, message) => void context.progress(progress, total, message),
            log: (level, data) => void context.log(level, data, 'agentd'),
            detach: async () => {
              const taskId = await context.detach();
              const tasks = dispatcher.tasks;
              return taskId === undefined || tasks === undefined
                ? undefined
                : { taskId, owner: tasks.ownerOf(context.peer) };
            },
            era: context.era,
            inputKeys: () => Object.keys(context.inputResponses ?? {}),
            elicit: (params, options) => context.elicit(params, options),
          });
        } catch (error) {
          if (error instanceof LocalError) throw refusal(error);
          throw error;
        }
      },
    });
  };
  dispatcher.use(refuseAnonymousTasks);
  for (const spec of operations) register(spec);
  registerRunsApp(dispatcher, options.exposure);

  const read = async (uri: string, peer: Peer) => {
    try {
      return json(uri, await readResource(options.resources, uri, peer));
    } catch (error) {
      if (error instanceof ResourceError && error.reason === 'not_found') return undefined;
      throw error;
    }
  };
  for (const spec of RESOURCE_SPECS) {
    const shared = {
      name: spec.name,
      description: spec.description,
      meta: { [SUBSCRIBABLE_META]: spec.subscribable },
      mimeType: 'application/json',
      cache: { ttlMs: 0, cacheScope: 'private' },
    } as const;
    if (spec.template) {
      dispatcher.registerResourceTemplate({
        ...shared,
        uriTemplate: spec.uri,
        read: (uri, _variables, context) => read(uri, context.peer),
      });
    } else {
      dispatcher.registerResource({
        ...shared,
        uri: spec.uri,
        read: (uri, context) => read(uri, context.peer),
      });
    }
    if (spec.queryTemplate !== undefined) {
      // The same resource read with a query (agent://events?after=N&level=L).
      dispatcher.registerResourceTemplate({
        uriTemplate: spec.queryTemplate,
        name: `${spec.name}-query`,
        description: spec.description,
        meta: { [SUBSCRIBABLE_META]: spec.subscribable },
        mimeType: 'application/json',
        cache: { ttlMs: 0, cacheScope: 'private' },
        read: (uri, _variables, context) => read(uri, context.peer),
      });
    }
  }

  /**
   * Subscribe gate: unknown and hidden URIs answer false (the core's generic refusal, identical
   * for both, so a stdio peer cannot probe); known but non-subscribable ones say why.
   */
  const canSubscribe = async (uri: string, peer: Peer): Promise<boolean> => {
    if (!dispatcher.canSubscribe(uri, peer)) return false;
    const parsed = parseAgentUri(uri);
    const spec = parsed === undefined ? undefined : RESOURCE_SPECS.find((r) => r.name === parsed.kind);
    if (spec === undefined)
      throw refuse.invalidParams(`${uri} is not subscribable; read it when you need it`, { uri });
    try {
      await checkSubscribable(options.resources, uri, peer);
      return true;
    } catch (error) {
      if (!(error instanceof ResourceError)) throw error;
      if (error.reason === 'not_found') return false;
      throw refuse.invalidParams(error.message, { uri });
    }
  };
  const handler: Handler = {
    capabilities: () => ({ ...dispatcher.capabilities(), resources: { subscribe: true, listChanged: true } }),
    handle: (request, context) => dispatcher.handle(request, context),
    canSubscribe,
    canWatchTask: (taskId, peer) => dispatcher.canWatchTask(taskId, peer),
    onConnect: () => dispatcher.onConnect(),
  };

  return {
    handler,
    refreshOperations() {
      const next = options.operations();
      for (const spec of next) {
        dispatcher.removeOperation(spec.kind, spec.id);
        register(spec);
      }
      operations = next;
      filters = filtersByTrust(operations);
    },
    onSurfaceChanged(listener) {
      dispatcher.onSurfaceChanged((kinds) => listener(kinds));
    },
    onTaskStatus(listener) {
      dispatcher.onTaskStatus(listener);
    },
    visibleOperations(peer) {
      // The dispatcher's own view: trust filters and scopes, exactly what lists and search show.
      const visible = new Set(dispatcher.operationIndex(peer).map((o) => `${o.kind}_${o.id}`));
      return operations.filter((o) => visible.has(filterName(o)));
    },
    codeModeStats() {
      return runner?.stats();
    },
    close: async () => {
      await dispatcher.close();
      await runner?.close();
    },
  };
}
