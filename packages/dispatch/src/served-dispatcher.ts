/**
 * ServedDispatcher: what McpServer and ContractServer share, a Dispatcher served by a server core
 * on any number of transports, with middleware and tool-call hooks and one `close()` for all.
 */
import type { ServerCore } from '@agentd/server';
import type { Dispatcher } from './dispatcher.js';
import type { Middleware } from './middleware.js';
import type { ServedTransport, ServerTransport } from './server-transport.js';
import type { ToolCallHook } from './tool-call-hooks.js';

export class ServedDispatcher {
  /** The engine behind this face: every registration option and method (`filtersFor`, tasks, …). */
  readonly dispatcher: Dispatcher;
  /** The server core every transport serves: its `notify*` methods push to connected clients. */
  readonly core: ServerCore;
  readonly #served = new Set<ServedTransport>();
  #closing: Promise<void> | undefined;

  protected constructor(dispatcher: Dispatcher, core: ServerCore) {
    this.dispatcher = dispatcher;
    this.core = core;
  }

  /** Adds request middleware (`(ctx, next)` around every request). */
  use(middleware: Middleware): this {
    this.dispatcher.use(middleware);
    return this;
  }

  /** Adds a tool-call hook (`(call, next)` around every tool handler). */
  useToolCall(hook: ToolCallHook): this {
    this.dispatcher.useToolCall(hook);
    return this;
  }

  /**
   * Serves on `transport` (`stdio()`, `unix(path)`, `http({ port })`); resolves once it accepts
   * messages. Connect more than one to serve the same tools on each.
   */
  async connect(transport: ServerTransport): Promise<ServedTransport> {
    const served = await transport.start(this.core);
    this.#served.add(served);
    void served.closed.then(() => this.#served.delete(served));
    return served;
  }

  /** Closes every transport (letting requests in flight finish), the core, then the dispatcher. */
  close(deadlineMs?: number): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#served].map((served) => served.close(deadlineMs)));
      await this.core.close();
      await this.dispatcher.close();
    })();
    return this.#closing;
  }
}
