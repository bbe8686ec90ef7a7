/**
 * McpServer: the front door. One object registers tools, resources, prompts, operations and MCP
 * Apps (extensions such as `@agentd/skills` register on it too), pushes `list_changed` by itself,
 * and serves on any transport (`connect(stdio())`).
 * Named and shaped like the official SDK v2 server so its users find their way; underneath it is
 * a Dispatcher served by the shared server core, both reachable for what the face does not cover.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import { createServerCore, type ServerCoreOptions } from '@agentd/server';
import { type AppResourceDefinition, registerAppResource } from './app-resource.js';
import { type AppToolDefinition, registerAppTool } from './app-tool.js';
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
  TypedToolHandler,
} from './definitions.js';
import { Dispatcher } from './dispatcher.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import { ServedDispatcher } from './served-dispatcher.js';
import type { ToolSchema } from './tool-schema.js';
import { UriTemplate } from './uri-template.js';

export interface McpServerOptions extends DispatcherOptions {
  /** The server core's options (limits, lifecycle eras, subscription registry). */
  core?: Omit<ServerCoreOptions, 'handler' | 'serverInfo' | 'logger'>;
}

/** What `new McpServer(info)` names the server as (`serverInfo`). */
export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
  [field: string]: unknown;
}

type Config<Definition, Omitted extends string> = Omit<Definition, 'name' | Omitted> & {
  /** The SDK's spelling of `meta`; either is accepted. */
  _meta?: JsonObject;
};

export class McpServer extends ServedDispatcher {
  constructor(info: McpServerInfo, options: McpServerOptions = {}) {
    const { core: coreOptions, ...dispatcherOptions } = options;
    const dispatcher = new Dispatcher(dispatcherOptions);
    const core = createServerCore({
      ...coreOptions,
      handler: dispatcher,
      serverInfo: info,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    super(dispatcher, core);
    dispatcher.onSurfaceChanged((kinds) => {
      for (const kind of kinds) core.notifyListChanged(kind);
    });
    dispatcher.onTaskStatus((event) =>
      core.notifyTaskStatus(event.taskId, event.message, event.creatorConnectionId),
    );
  }

  /**
   * Registers a tool: `registerTool(name, { description, inputSchema, outputSchema }, handler)`.
   * The schemas are JSON Schema or Standard JSON Schema (zod >= 4.2, ArkType, Valibot); the
   * handler's argument and result types follow from them. Returns a function that removes it.
   */
  registerTool<
    const In extends ToolSchema = JsonObject,
    const Out extends ToolSchema | undefined = undefined,
  >(
    name: string,
    config: Config<ToolDefinition<In, Out>, 'handler' | 'description'> & { description?: string },
    handler: TypedToolHandler<In, Out>,
  ): () => boolean {
    const { _meta, description, ...rest } = config;
    return this.dispatcher.registerTool<In, Out>({
      ...rest,
      ...withMeta(_meta, rest.meta),
      name,
      description: description ?? '',
      handler,
    } as ToolDefinition<In, Out>);
  }

  /**
   * Registers a resource at a fixed `uri`, or a family of them when given a `UriTemplate`
   * (`new UriTemplate('notes://{id}')`; `read` then also receives the template's variables).
   */
  registerResource(
    name: string,
    uri: string,
    config: Config<ResourceDefinition, 'uri' | 'read'>,
    read: ResourceDefinition['read'],
  ): () => boolean;
  registerResource(
    name: string,
    template: UriTemplate,
    config: Config<ResourceTemplateDefinition, 'uriTemplate' | 'read'>,
    read: ResourceTemplateDefinition['read'],
  ): () => boolean;
  registerResource(
    name: string,
    where: string | UriTemplate,
    config:
      | Config<ResourceDefinition, 'uri' | 'read'>
      | Config<ResourceTemplateDefinition, 'uriTemplate' | 'read'>,
    read: ResourceDefinition['read'] | ResourceTemplateDefinition['read'],
  ): () => boolean {
    const { _meta, ...rest } = config;
    const meta = withMeta(_meta, rest.meta);
    if (where instanceof UriTemplate) {
      return this.dispatcher.registerResourceTemplate({
        ...(rest as Omit<ResourceTemplateDefinition, 'name' | 'uriTemplate' | 'read'>),
        ...meta,
        name,
        uriTemplate: where.template,
        read: read as ResourceTemplateDefinition['read'],
      });
    }
    return this.dispatcher.registerResource({
      ...(rest as Omit<ResourceDefinition, 'name' | 'uri' | 'read'>),
      ...meta,
      name,
      uri: where,
      read: read as ResourceDefinition['read'],
    });
  }

  /** Registers a prompt: `registerPrompt(name, { description, argsSchema }, get)`. */
  registerPrompt<const In extends ToolSchema | undefined = undefined>(
    name: string,
    config: Config<PromptDefinition<In>, 'get' | 'description'> & { description?: string },
    get: PromptDefinition<In>['get'],
  ): () => boolean {
    const { _meta, description, ...rest } = config;
    return this.dispatcher.registerPrompt<In>({
      ...rest,
      ...withMeta(_meta, rest.meta),
      name,
      description: description ?? '',
      get,
    } as PromptDefinition<In>);
  }

  /**
   * Registers an MCP App's view: `registerAppResource(name, 'ui://…', { title, description, ui }, html)`;
   * `html` is the HTML document, or a function that builds it for each read. Register it before
   * the tools that link it. Returns a function that removes it.
   */
  registerAppResource(
    name: string,
    uri: string,
    config: Config<AppResourceDefinition, 'uri' | 'html'>,
    html: AppResourceDefinition['html'],
  ): () => boolean {
    const { _meta, ...rest } = config ?? {};
    return registerAppResource(this.dispatcher, {
      ...rest,
      ...withMeta(_meta, rest.meta),
      name,
      uri,
      html,
    });
  }

  /**
   * Registers a tool rendered by an MCP App's view: `registerAppTool(name, { description,
   * inputSchema, ui: { resourceUri } }, handler)`, typed like `registerTool`.
   */
  registerAppTool<
    const In extends ToolSchema = JsonObject,
    const Out extends ToolSchema | undefined = undefined,
  >(
    name: string,
    config: Config<AppToolDefinition<In, Out>, 'handler' | 'description'> & { description?: string },
    handler: TypedToolHandler<In, Out>,
  ): () => boolean {
    const { _meta, description, ...rest } = config ?? {};
    return registerAppTool<In, Out>(this.dispatcher, {
      ...rest,
      ...withMeta(_meta, rest.meta),
      name,
      description: description ?? '',
      handler,
    } as AppToolDefinition<In, Out>);
  }

  /** Registers an operation: a tool `{kind}_{id}`, or reached through `search`/`execute` in code mode. */
  registerOperation: Dispatcher['registerOperation'] = (definition) =>
    this.dispatcher.registerOperation(definition);

  /** Offers an extension in `capabilities.extensions`; returns a function that withdraws it. */
  declareExtension: Dispatcher['declareExtension'] = (id, settings) =>
    this.dispatcher.declareExtension(id, settings);
}

function withMeta(sdkMeta: JsonObject | undefined, meta: JsonObject | undefined): { meta?: JsonObject } {
  if (sdkMeta === undefined) return meta === undefined ? {} : { meta };
  return { meta: { ...sdkMeta, ...meta } };
}
