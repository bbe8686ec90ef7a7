/**
 * Tasks as a MethodProvider: tasks/* of both eras, the 2025-11-25 `tasks` capability and the
 * 2026-07-28 extension, offered while at least one task-capable tool is registered.
 */
import {
  LEGACY_TASK_METHODS,
  legacyTasksCapability,
  MODERN_TASK_METHODS,
  TASKS_EXTENSION,
} from '@agentd/lifecycle/tasks';
import type { JsonObject, Logger } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import type { MethodProvider, ProvidedCapabilities, ProviderHost } from './method-provider.js';
import { handleTaskMethod } from './task-methods.js';
import { TaskRuntime, type TasksOptions } from './task-runtime.js';

const TASK_METHODS = [...new Set([...MODERN_TASK_METHODS, ...LEGACY_TASK_METHODS])];

const SERVING: ProvidedCapabilities = Object.freeze({
  capabilities: { tasks: legacyTasksCapability() },
  extensions: { [TASKS_EXTENSION]: {} },
});

export class TasksProvider implements MethodProvider {
  readonly name = 'tasks';
  readonly methods = TASK_METHODS;
  readonly runtime: TaskRuntime;
  readonly #tools = new Set<string>();
  #host: ProviderHost | undefined;

  constructor(options: TasksOptions, logger: Logger) {
    this.runtime = new TaskRuntime(options, logger);
  }

  attach(host: ProviderHost): void {
    this.#host = host;
  }

  /** A task-capable tool was registered under `name`. */
  track(name: string): void {
    const before = this.#tools.size;
    this.#tools.add(name);
    if (before === 0 && this.#tools.size > 0) this.#host?.changed();
  }

  /** The task-capable tool `name` went away. */
  untrack(name: string): void {
    if (this.#tools.delete(name) && this.#tools.size === 0) this.#host?.changed();
  }

  active(): boolean {
    return this.#tools.size > 0;
  }

  handle(method: string, params: JsonObject, context: RequestContext): Promise<JsonObject> {
    return handleTaskMethod(this.runtime, method, params, context);
  }

  capabilities(): ProvidedCapabilities | undefined {
    return this.#tools.size > 0 ? SERVING : undefined;
  }

  close(): Promise<void> {
    return this.runtime.close();
  }
}
