/** Builds the conformance "everything" server: a Dispatcher and a ServerCore, on any runtime (no `node:` import). */
import { Dispatcher } from '@agentd/dispatch';
import { type ParamHeader, paramHeadersOf } from '@agentd/lifecycle';
import { createServerCore, type Handler, type ServerCore, silentLogger } from '@agentd/server';
import { registerCancelProbe } from './cancel-probe.js';
import { registerClientInputTools } from './client-input-tools.js';
import { CUSTOM_HEADERS_SCHEMA, registerContentTools } from './content-tools.js';
import { registerExtensionFixtures } from './extension-fixtures.js';
import { registerPrompts, registerResources, WATCHED_URI } from './prompts-and-resources.js';
import { registerSsePollingTool } from './sse-polling-tool.js';
import { registerTaskTools } from './task-tools.js';

/** The fixture without a transport: serve `core` through any adapter, with `toolParamHeaders`. */
export interface EverythingApp {
  readonly core: ServerCore;
  readonly toolParamHeaders: (toolName: string) => readonly ParamHeader[] | undefined;
  close(): Promise<void>;
}

function buildDispatcher(core: () => ServerCore): Dispatcher {
  const dispatcher = new Dispatcher({ cache: { listTtlMs: 300_000 }, logger: silentLogger });
  registerContentTools(dispatcher);
  registerClientInputTools(dispatcher);
  registerTaskTools(dispatcher);
  registerCancelProbe(dispatcher);
  registerSsePollingTool(dispatcher);
  dispatcher.registerTool({
    name: 'test_trigger_tool_change',
    description: 'Fires notifications/tools/list_changed to listen streams that asked for it',
    handler: () => {
      core().notifyListChanged('tools');
      return 'Mutation triggered';
    },
  });
  dispatcher.registerTool({
    name: 'test_trigger_prompt_change',
    description: 'Fires notifications/prompts/list_changed to listen streams that asked for it',
    handler: () => {
      core().notifyListChanged('prompts');
      return 'Mutation triggered';
    },
  });
  registerPrompts(dispatcher);
  registerResources(dispatcher);
  registerExtensionFixtures(dispatcher);
  return dispatcher;
}

/**
 * The embedder decides whether resource subscriptions are offered: this fixture offers them
 * (the dispatcher gates each uri through `canSubscribe`).
 */
function withSubscriptions(dispatcher: Dispatcher): Handler {
  return {
    capabilities: () => {
      const capabilities = dispatcher.capabilities();
      return capabilities.resources === undefined
        ? capabilities
        : { ...capabilities, resources: { ...capabilities.resources, subscribe: true } };
    },
    handle: (request, context) => dispatcher.handle(request, context),
    canSubscribe: (uri, peer) => dispatcher.canSubscribe(uri, peer),
    canWatchTask: (taskId, peer) => dispatcher.canWatchTask(taskId, peer),
    onConnect: () => dispatcher.onConnect(),
  };
}

export function createEverythingApp(): EverythingApp {
  let core: ServerCore | undefined;
  const dispatcher = buildDispatcher(() => core as ServerCore);
  core = createServerCore({
    handler: withSubscriptions(dispatcher),
    serverInfo: { name: 'agentd-conformance-server', version: '0.0.0' },
    logger: silentLogger,
  });
  const ready = core;
  dispatcher.onSurfaceChanged((kinds) => {
    for (const kind of kinds) ready.notifyListChanged(kind);
  });
  dispatcher.onTaskStatus((event) =>
    ready.notifyTaskStatus(event.taskId, event.message, event.creatorConnectionId),
  );
  const paramHeaders = new Map([['test_custom_headers', paramHeadersOf(CUSTOM_HEADERS_SCHEMA)]]);
  // The watched resource changes every 3 s, as in the reference fixture.
  const ticker = setInterval(() => ready.notifyResourceUpdated(WATCHED_URI, { keep: true }), 3_000);
  (ticker as { unref?: () => void }).unref?.();
  return {
    core: ready,
    toolParamHeaders: (name) => paramHeaders.get(name),
    async close() {
      clearInterval(ticker);
      await ready.close();
      await dispatcher.close();
    },
  };
}
