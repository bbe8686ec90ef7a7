/**
 * Client input for a running task. The handler's `elicit`/`sample`/`listRoots` park the task in
 * `input_required`; the answer arrives later (modern `tasks/update`, legacy through the blocking
 * `tasks/result`) and the handler simply continues: unlike a multi-round-trip request, a task's
 * handler is never rerun.
 */
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import {
  type ClientInputMethod,
  MissingClientCapabilityError,
  missingCapability,
} from './client-capability.js';
import { checkInputResponse } from './input-responses.js';
import { InputSession } from './input-session.js';
import { dispatchError } from './local-errors.js';

export interface PendingInput {
  readonly method: ClientInputMethod;
  readonly params: JsonObject;
  resolve(answer: JsonObject): void;
  reject(error: Error): void;
}

/** What the task runtime offers a task's input session. */
export interface TaskInputHost {
  /** Parks the task on `key` (status `input_required`) and resolves with the client's raw answer. */
  park(key: string, input: Omit<PendingInput, 'resolve' | 'reject'>): Promise<unknown>;
  /** Keys asked so far in this task: a key is never reused over a task's lifetime. */
  readonly usedKeys: Set<string>;
}

const AUTO_KEY_PREFIX: Record<ClientInputMethod, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

export class TaskInputSession extends InputSession {
  readonly #host: TaskInputHost;
  readonly #capabilities: JsonObject;
  #counter = 0;

  constructor(context: RequestContext, host: TaskInputHost) {
    super(context, {});
    this.#host = host;
    this.#capabilities = context.clientCapabilities;
  }

  override ask(method: ClientInputMethod, params: JsonObject, key?: string): Promise<JsonObject> {
    const missing = missingCapability(method, params, this.#capabilities);
    if (missing) return Promise.reject(new MissingClientCapabilityError(missing));
    const resolvedKey = key ?? this.#autoKey(method);
    if (this.#host.usedKeys.has(resolvedKey)) {
      return Promise.reject(
        dispatchError('duplicate', `input key ${JSON.stringify(resolvedKey)} was already used in this task`),
      );
    }
    this.#host.usedKeys.add(resolvedKey);
    return this.#host
      .park(resolvedKey, { method, params })
      .then((answer) => checkInputResponse(method, resolvedKey, answer));
  }

  #autoKey(method: ClientInputMethod): string {
    let key: string;
    do {
      this.#counter++;
      key = `task_${AUTO_KEY_PREFIX[method]}_${this.#counter}`;
    } while (this.#host.usedKeys.has(key));
    return key;
  }
}
