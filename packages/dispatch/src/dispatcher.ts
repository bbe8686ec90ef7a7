/** The Dispatcher: one shared instance implementing the server's Handler over registries of tools, operations, resources and prompts. */
import type { CodeModeRunner } from '@agentd/codemode';
import { isExtensionId, refuse } from '@agentd/lifecycle';
import { TASKS_EXTENSION } from '@agentd/lifecycle/tasks';
import { type JsonObject, type JsonRpcRequest, type Logger, stderrLogger } from '@agentd/rpc-frame';
import type { Handler, Peer, RequestContext, ServerCapabilities } from '@agentd/server';
import { callTool } from './call-tool.js';
import { Catalogue, type SurfaceKind } from './catalogue.js';
import { type ClientFilters, compileFilters } from './client-filters.js';
import { type CodeModeWiring, createCodeMode } from './code-mode.js';
import { complete, completerKey } from './complete.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type {
  CacheHints,
  Completer,
  CompletionRef,
  ErasedOperationDefinition,
  ErasedToolDefinition,
  OperationDefinition,
  OperationIndexEntry,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from './definitions.js';
import { type DispatchEnv, finishResult } from './dispatch-env.js';
import { DEFAULT_PAGE_SIZE, type DispatcherOptions } from './dispatcher-options.js';
import { getPrompt } from './get-prompt.js';
import { deepFreeze, isJsonObject } from './json.js';
import { listPrompts, listResources, listResourceTemplates, listTools } from './list-methods.js';
import { dispatchError } from './local-errors.js';
import type { MethodProvider, ProviderHost } from './method-provider.js';
import { type Middleware, runMiddleware } from './middleware.js';
import { loadCodeMode } from './optional-peers.js';
import { ProviderRegistry } from './provider-registry.js';
import { readResource, resolveResource } from './read-resource.js';
import { RequestStateCodec } from './request-state.js';
import { describeIssues } from './schema-compiler.js';
import { defaultScopesOf, withScopes } from './scopes.js';
import { pageEntries } from './sorted-list.js';
import { SurfaceEvents, type SurfaceListener } from './surface-events.js';
import type { TaskStatusEvent } from './task-notification.js';
import type { TaskRuntime } from './task-runtime.js';
import { TasksProvider } from './tasks-provider.js';
import type { ToolCallHook } from './tool-call-hooks.js';
import type { ToolSchema } from './tool-schema.js';

type MethodImpl = (
  env: DispatchEnv,
  params: JsonObject,
  context: RequestContext,
) => JsonObject | Promise<JsonObject>;

const METHODS: Record<string, { impl: MethodImpl; capability: keyof ServerCapabilities }> = {
  'tools/list': { impl: listTools, capability: 'tools' },
  'tools/call': { impl: callTool, capability: 'tools' },
  'resources/list': { impl: listResources, capability: 'resources' },
  'resources/templates/list': { impl: listResourceTemplates, capability: 'resources' },
  'resources/read': { impl: readResource, capability: 'resources' },
  'prompts/list': { impl: listPrompts, capability: 'prompts' },
  'prompts/get': { impl: getPrompt, capability: 'prompts' },
  'completion/complete': { impl: complete, capability: 'completions' },
};

export class Dispatcher implements Handler {
  readonly exposure: 'classic' | 'codemode';
  readonly #catalogue: Catalogue;
  readonly #events: SurfaceEvents;
  readonly #env: DispatchEnv;
  readonly #filtersFor: ((peer: Peer) => ClientFilters | undefined) | undefined;
  readonly #codeMode: CodeModeWiring | undefined;
  readonly #subscribe: boolean;
  /** Bumped whenever an extension is declared or withdrawn, or a provider changed: part of the capabilities cache key. */
  #revision = 0;
  #capabilities: { key: number; value: ServerCapabilities } | undefined;
  readonly #providers: ProviderRegistry;
  readonly #tasks: TasksProvider | undefined;
  readonly #middleware: Middleware[] = [];
  readonly #toolHooks: ToolCallHook[] = [];
  readonly #logger: Logger;
  readonly #extensions = new Map<string, JsonObject>();
  #started = false;

  constructor(options: DispatcherOptions = {}) {
    this.exposure = options.exposure ?? 'classic';
    if (this.exposure !== 'classic' && this.exposure !== 'codemode') {
      throw dispatchError('invalid_option', `exposure must be 'classic' or 'codemode'`);
    }
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw dispatchError('invalid_option', 'pageSize must be a positive integer');
    const scheme = options.schemaScheme ?? 'mcp';
    if (scheme !== false && !/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) {
      throw dispatchError('invalid_option', `schemaScheme ${JSON.stringify(scheme)} is not a URI scheme`);
    }
    const logger = options.logger ?? stderrLogger();
    this.#logger = logger;
    this.#filtersFor = options.filtersFor;
    this.#subscribe = options.resourceSubscriptions ?? true;
    this.#events = new SurfaceEvents(options.surfaceDebounceMs ?? 25, (error) =>
      logger.error('surface listener failed', { error: String(error) }),
    );
    const validation = options.schemaValidation ?? 'auto';
    if (validation !== 'auto' && validation !== 'compiled' && validation !== 'interpreted')
      throw dispatchError('invalid_option', `schemaValidation must be 'auto', 'compiled' or 'interpreted'`);
    this.#catalogue = new Catalogue(this.exposure, scheme, (kinds) => this.#changed(kinds), validation);
    const cacheScope = options.cache?.cacheScope ?? (options.filtersFor ? 'private' : 'public');
    const listHints = { ttlMs: options.cache?.listTtlMs ?? 10_000, cacheScope };
    const readTtlMs = options.cache?.readTtlMs ?? 0;
    const filtersFor = options.filtersFor;
    const scopesOf = options.scopesOf ?? defaultScopesOf;
    const catalogue = this.#catalogue;
    const format =
      options.formatInvalidArguments ?? ((issues) => `Invalid arguments: ${describeIssues(issues)}`);
    this.#tasks = options.tasks === false ? undefined : new TasksProvider(options.tasks ?? {}, logger);
    this.#env = {
      tasks: this.#tasks?.runtime,
      catalogue: this.#catalogue,
      codec: new RequestStateCodec(options.requestState ?? {}),
      pageSize,
      logger,
      filters: (peer) => withScopes(compileFilters(filtersFor?.(peer)), catalogue, scopesOf(peer)),
      listCache: () => listHints,
      readCache: (hints: CacheHints | undefined) => ({
        ttlMs: hints?.ttlMs ?? readTtlMs,
        cacheScope: hints?.cacheScope ?? cacheScope,
      }),
      invalidArgumentsMessage: format,
      toolHooks: this.#toolHooks,
      stepUp: options.stepUp ?? false,
    };
    this.#providers = new ProviderRegistry((method) => Object.hasOwn(METHODS, method), this.#providerHost());
    for (const [id, settings] of Object.entries(options.extensions ?? {}))
      this.declareExtension(id, settings);
    // The built-in Tasks extension is a provider like any other (Skills, `@agentd/skills`, is one too).
    if (this.#tasks !== undefined) this.registerProvider(this.#tasks);
    for (const provider of options.providers ?? []) this.registerProvider(provider);
    if (this.exposure === 'codemode') {
      this.#codeMode = createCodeMode(this.#env, options.codeMode ?? {}, async () => {
        const { CodeModeRunner } = await loadCodeMode();
        return new CodeModeRunner() as CodeModeRunner;
      });
      for (const tool of this.#codeMode.tools) {
        const built = this.#catalogue.buildTool(tool, true);
        this.#catalogue.setMetaTool({ ...built, entryFor: this.#codeMode.entryFor(built) });
      }
    }
  }

  // ---- registration ---------------------------------------------------------------------

  /**
   * Offers extension `id` (`{vendor-prefix}/{name}`) with `settings` in `capabilities.extensions`
   * of `initialize` (legacy) and `server/discover` (2026-07-28); declaring it again replaces the
   * settings. Returns a function that withdraws this declaration. Handlers read what the client
   * declared with `context.extension(id)`. The tasks extension is declared by task tools themselves.
   */
  declareExtension(id: string, settings: JsonObject = {}): () => boolean {
    if (!isExtensionId(id)) {
      throw dispatchError(
        'invalid_definition',
        `extension id ${JSON.stringify(id)} is not {vendor-prefix}/{name}, e.g. io.modelcontextprotocol/ui`,
      );
    }
    if (id === TASKS_EXTENSION)
      throw dispatchError('invalid_definition', `${id} is declared by registering tools with \`task\``);
    if (!isJsonObject(settings))
      throw dispatchError('invalid_definition', `extension ${id}: settings must be a JSON object`);
    const declared = Object.freeze(structuredClone(settings));
    this.#extensions.set(id, declared);
    this.#revision++;
    return () => {
      if (this.#extensions.get(id) !== declared) return false;
      this.#extensions.delete(id);
      this.#revision++;
      return true;
    };
  }

  /**
   * Registers a tool; returns a function that removes it. The handler's argument and return types
   * are inferred from `inputSchema` / `outputSchema` (JSON Schema literals or Standard JSON Schemas).
   */
  registerTool<
    const In extends ToolSchema = JsonObject,
    const Out extends ToolSchema | undefined = undefined,
  >(definition: ToolDefinition<In, Out>): () => boolean {
    const remove = this.#catalogue.addTool(definition as unknown as ErasedToolDefinition);
    if (definition.task === undefined) return remove;
    this.#tasks?.track(definition.name);
    return () => {
      this.#tasks?.untrack(definition.name);
      return remove();
    };
  }

  removeTool(name: string): boolean {
    this.#tasks?.untrack(name);
    return this.#catalogue.removeTool(name);
  }

  /**
   * Task status changes, to deliver through the server's subscription machinery:
   * `dispatcher.onTaskStatus((e) => core.notifyTaskStatus(e.taskId, e.message, e.creatorConnectionId))`.
   */
  onTaskStatus(listener: (event: TaskStatusEvent) => void): () => void {
    return this.#tasks?.runtime.onStatus(listener) ?? (() => false);
  }

  /** Listen-stream gate for `notifications.taskIds`: only the peer's own, live, 2026-07-28 tasks. */
  async canWatchTask(taskId: string, peer: Peer): Promise<boolean> {
    const tasks = this.#tasks?.runtime;
    if (tasks === undefined) return false;
    const record = await tasks.store.get(taskId, tasks.ownerOf(peer));
    return record !== undefined && record.era === 'modern' && !tasks.expired(record);
  }

  /** The task runtime (store, live runs); undefined with `tasks: false`. */
  get tasks(): TaskRuntime | undefined {
    return this.#tasks?.runtime;
  }

  /** Registers an operation (exposed as `{kind}_{id}` in classic mode, through search/execute in code mode). */
  registerOperation<const In extends ToolSchema = JsonObject>(
    definition: OperationDefinition<In>,
  ): () => boolean {
    const remove = this.#catalogue.addOperation(definition as unknown as ErasedOperationDefinition);
    // In code mode operations run inside `execute`, never as their own (task-capable) tool.
    if (definition.task === undefined || this.exposure !== 'classic') return remove;
    const toolName = `${definition.kind}_${definition.id}`;
    this.#tasks?.track(toolName);
    return () => {
      this.#tasks?.untrack(toolName);
      return remove();
    };
  }

  removeOperation(kind: string, id: string): boolean {
    this.#tasks?.untrack(`${kind}_${id}`);
    return this.#catalogue.removeOperation(kind, id);
  }

  registerResource(definition: ResourceDefinition): () => boolean {
    return this.#catalogue.addResource(definition);
  }

  removeResource(uri: string): boolean {
    return this.#catalogue.removeResource(uri);
  }

  registerResourceTemplate(definition: ResourceTemplateDefinition): () => boolean {
    return this.#catalogue.addTemplate(definition);
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    return this.#catalogue.removeTemplate(uriTemplate);
  }

  /** True when a resource is registered at `uri` (ignores filters). */
  hasResource(uri: string): boolean {
    return this.#catalogue.resources.has(uri);
  }

  /** True when a resource template is registered as `uriTemplate` (ignores filters). */
  hasResourceTemplate(uriTemplate: string): boolean {
    return this.#catalogue.templates.has(uriTemplate);
  }

  /**
   * Serves the methods of `provider` (an extension written against the MethodProvider seam) and
   * offers what it declares in `initialize` / `server/discover`. A method the core or another
   * provider serves is refused. Returns a function that withdraws the provider.
   */
  registerProvider(provider: MethodProvider): () => boolean {
    return this.#providers.register(provider);
  }

  /** Registers a prompt; with an `argsSchema`, `get`'s argument type is inferred from it. */
  registerPrompt<const In extends ToolSchema | undefined = undefined>(
    definition: PromptDefinition<In>,
  ): () => boolean {
    return this.#catalogue.addPrompt(definition as unknown as PromptDefinition<ToolSchema | undefined>);
  }

  removePrompt(name: string): boolean {
    return this.#catalogue.removePrompt(name);
  }

  /** Adds (or replaces) the completer of one prompt argument or template variable. */
  registerCompletion(ref: CompletionRef, argument: string, completer: Completer): () => boolean {
    if (typeof completer !== 'function')
      throw dispatchError('invalid_definition', 'completer must be a function');
    const name = ref.type === 'ref/prompt' ? ref.name : ref.type === 'ref/resource' ? ref.uri : undefined;
    if (typeof name !== 'string' || typeof argument !== 'string') {
      throw dispatchError(
        'invalid_definition',
        'completion ref must be ref/prompt {name} or ref/resource {uri}',
      );
    }
    const key = completerKey(ref.type, name, argument);
    this.#catalogue.completers.set(key, completer);
    return () => this.#catalogue.completers.delete(key);
  }

  /** True when `name` is a registered tool callable through tools/call in this exposure (ignores filters). */
  hasTool(name: string): boolean {
    return this.#catalogue.findTool(name) !== undefined;
  }

  /** The operation index (sorted by kind, then id), limited to what `peer` may see when given. */
  operationIndex(peer?: Peer): OperationIndexEntry[] {
    const filters = peer === undefined ? compileFilters(undefined) : this.#env.filters(peer);
    return this.#catalogue
      .operationList()
      .filter((op) => filters.toolVisible(op.toolName))
      .map((op) => op.index);
  }

  // ---- middleware -----------------------------------------------------------------------

  /**
   * Adds request middleware: `(ctx, next)` around every request this dispatcher serves, on every
   * transport, in registration order (the first added is outermost). See middleware.ts for what
   * is covered (not the lifecycle methods the server core answers, nor notifications).
   */
  use(middleware: Middleware): this {
    if (typeof middleware !== 'function')
      throw dispatchError('invalid_option', 'middleware must be a function');
    this.#middleware.push(middleware);
    return this;
  }

  /** Adds a tool-call hook: `(call, next)` around every tool handler, seeing validated arguments and the result. */
  useToolCall(hook: ToolCallHook): this {
    if (typeof hook !== 'function')
      throw dispatchError('invalid_option', 'tool-call hook must be a function');
    this.#toolHooks.push(hook);
    return this;
  }

  // ---- surface changes ------------------------------------------------------------------

  /**
   * Listens for changes of the tool/resource/prompt surface after the dispatcher started serving
   * (debounced). Typical use: `kinds.forEach((k) => core.notifyListChanged(k))`.
   */
  onSurfaceChanged(listener: SurfaceListener): () => void {
    return this.#events.subscribe(listener);
  }

  /** Marks the surface changed by hand, e.g. after `filtersFor` starts answering differently (config reload). */
  notifySurfaceChanged(kinds: readonly SurfaceKind[] = ['tools', 'resources', 'prompts']): void {
    this.#events.mark(kinds);
  }

  // ---- Handler ------------------------------------------------------------------------

  /**
   * Frozen, and the same object until what it describes changes: every request checks its method
   * against it, so it is built once per change of the surface, not per call.
   */
  capabilities(): ServerCapabilities {
    const c = this.#catalogue;
    const provided = this.#providers.provided(this.#revision);
    const tools = c.hasAnyTools() || provided.needs.has('tools');
    const schemaResources = c.schemaScheme !== false && c.operations.size > 0;
    const resources =
      c.resources.size > 0 || c.templates.size > 0 || schemaResources || provided.needs.has('resources');
    const prompts = c.prompts.size > 0 || provided.needs.has('prompts');
    const completions = prompts || c.templates.size > 0;
    const key =
      this.#revision * 16 + (tools ? 1 : 0) + (resources ? 2 : 0) + (prompts ? 4 : 0) + (completions ? 8 : 0);
    if (this.#capabilities?.key === key) return this.#capabilities.value;
    const capabilities: ServerCapabilities = {};
    if (tools) capabilities.tools = { listChanged: true };
    if (resources) {
      capabilities.resources = this.#subscribe
        ? { subscribe: true, listChanged: true }
        : { listChanged: true };
    }
    if (prompts) capabilities.prompts = { listChanged: true };
    if (completions) capabilities.completions = {};
    if (tools || resources || prompts) capabilities.logging = {};
    // A provider adds capabilities of its own; it never replaces the core's.
    Object.assign(capabilities, { ...provided.capabilities, ...capabilities });
    const extensions: JsonObject = { ...Object.fromEntries(this.#extensions), ...provided.extensions };
    if (Object.keys(extensions).length > 0) capabilities.extensions = extensions;
    const value = deepFreeze(capabilities);
    this.#capabilities = { key, value };
    return value;
  }

  handle(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject> {
    if (this.#middleware.length === 0) return this.#serve(request, context);
    return runMiddleware(this.#middleware, this.#logger, request, context, (r, c) => this.#serve(r, c));
  }

  /** Never throws: a refusal is a rejected promise, whichever step found it. */
  #serve(request: JsonRpcRequest, context: RequestContext): Promise<JsonObject> {
    try {
      const answer = this.#route(request, context);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #route(request: JsonRpcRequest, context: RequestContext): JsonObject | Promise<JsonObject> {
    this.#started = true;
    const provider = this.#providers.serving(request.method);
    if (provider !== undefined) return provider.handle(request.method, request.params ?? {}, context);
    const method = METHODS[request.method];
    if (
      !method ||
      !Object.hasOwn(METHODS, request.method) ||
      this.capabilities()[method.capability] === undefined
    ) {
      throw refuse.methodNotFound(request.method);
    }
    // Params are an object or absent: rpc-frame's classify refuses anything else (-32600) first.
    const params = request.params ?? {};
    this.#providers.inspect(request.method, params);
    return method.impl(this.#env, params, context);
  }

  canSubscribe(uri: string, peer: Peer): boolean {
    return resolveResource(this.#env, this.#env.filters(peer), uri) !== undefined;
  }

  onConnect(): void {
    this.#started = true;
  }

  /** Drops pending surface events and closes the Code Mode runner the dispatcher created. */
  async close(): Promise<void> {
    this.#events.close();
    await this.#codeMode?.close();
    await this.#providers.close();
  }

  /** What every provider is offered: the extension settings, and the env its methods answer with. */
  #providerHost(): ProviderHost {
    const env = this.#env;
    return {
      changed: () => {
        this.#revision++;
      },
      extension: (id) => this.#extensions.get(id),
      logger: env.logger,
      resources: (context) => {
        const filters = env.filters(context.peer);
        return { permissive: filters.permissive, visible: (uri) => filters.resourceVisible(uri) };
      },
      page: (list, entries, cursor, keep) => {
        const page = pageEntries(entries, decodeCursor(list, cursor), env.pageSize, keep);
        const { nextAfter } = page;
        return {
          items: page.items,
          nextCursor: nextAfter === undefined ? undefined : encodeCursor(list, nextAfter),
        };
      },
      finish: (context, result, kind) =>
        finishResult(context, result, kind === 'list' ? env.listCache() : env.readCache(undefined)),
    };
  }

  #changed(kinds: SurfaceKind[]): void {
    if (this.#started) this.#events.mark(kinds);
  }
}
