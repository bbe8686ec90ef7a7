/**
 * MCP Apps tools: `registerAppTool` links a tool to a registered UI resource through
 * `_meta.ui.resourceUri` (plus the deprecated flat `_meta["ui/resourceUri"]`) and `visibility`.
 * App-only tools (`visibility: ["app"]`) exist only for clients that declared the extension.
 */
import {
  APPS_EXTENSION,
  type AppToolUi,
  appToolMeta,
  appToolUiProblem,
  visibleToModel,
} from '@agentd/lifecycle/apps';
import type { JsonObject } from '@agentd/rpc-frame';
import { appRegistryOf, declareApps } from './app-resource.js';
import type { ToolDefinition } from './definitions.js';
import { type DispatcherHost, dispatcherOf } from './dispatcher-host.js';
import { isJsonObject } from './json.js';
import { dispatchError } from './local-errors.js';
import type { ToolSchema } from './tool-schema.js';

/** A tool definition plus its UI link; `onlyForExtension` is decided from `ui.visibility`. */
export type AppToolDefinition<
  In extends ToolSchema = JsonObject,
  Out extends ToolSchema | undefined = undefined,
> = Omit<ToolDefinition<In, Out>, 'onlyForExtension'> & { ui: AppToolUi };

/**
 * Registers a tool rendered with a UI resource, on an McpServer or a Dispatcher. The resource must already be registered with
 * `registerAppResource` on the same server: a link to a missing one is a LocalError
 * `invalid_definition` here, at registration (the spec's "Resource MUST exist"), never at list
 * time. So are a malformed `ui` and a handler that returns nothing: hosts without the extension
 * show only `content`, so every call must produce some (a return of undefined is logged and answered with an error result).
 */
export function registerAppTool<
  const In extends ToolSchema = JsonObject,
  const Out extends ToolSchema | undefined = undefined,
>(host: DispatcherHost, definition: AppToolDefinition<In, Out>): () => boolean {
  const dispatcher = dispatcherOf(host, 'registerAppTool');
  if (typeof definition !== 'object' || definition === null)
    throw dispatchError(
      'invalid_definition',
      "registerAppTool(server, { name, ui, handler, … }) takes one definition object (ext-apps' (server, name, config, handler) is server.registerAppTool(name, config, handler))",
    );
  const name = definition.name;
  const problem = appToolUiProblem(definition.ui);
  if (problem !== undefined) throw dispatchError('invalid_definition', `tool ${name}: ${problem}`);
  if (definition.meta !== undefined && !isJsonObject(definition.meta))
    throw dispatchError('invalid_definition', `tool ${name}: meta must be an object`);
  const { ui, handler, ...rest } = definition;
  const registry = appRegistryOf(dispatcher);
  const linked = registry.links.get(ui.resourceUri);
  if (linked === undefined) {
    throw dispatchError(
      'invalid_definition',
      `tool ${name}: ui.resourceUri ${ui.resourceUri} is not a registered UI resource: registerAppResource it first`,
    );
  }
  const wrapped = async (...args: Parameters<typeof handler>) => {
    const out = await handler(...args);
    // A server bug (invalid_result: logged, the caller gets the generic internal-error result).
    if (out === undefined || out === null)
      throw dispatchError(
        'invalid_result',
        `app tool ${name} returned no content; hosts without MCP Apps only see content`,
      );
    return out;
  };
  const remove = dispatcher.registerTool({
    ...rest,
    meta: appToolMeta(ui, definition.meta),
    ...(visibleToModel(ui.visibility) ? {} : { onlyForExtension: APPS_EXTENSION }),
    handler: wrapped as typeof handler,
  } as ToolDefinition<In, Out>);
  linked.add(name);
  declareApps(dispatcher, registry);
  return () => {
    registry.links.get(ui.resourceUri)?.delete(name);
    return remove();
  };
}
