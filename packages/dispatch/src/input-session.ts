/** One request's client-input bookkeeping: answers known so far, requests still missing, era-specific delivery. */
import type { JsonObject } from '@agentd/rpc-frame';
import type { RequestContext } from '@agentd/server';
import {
  type ClientInputMethod,
  MissingClientCapabilityError,
  missingCapability,
} from './client-capability.js';
import { checkInputResponse } from './input-responses.js';
import { dispatchError } from './local-errors.js';

/** An MCP `InputRequest`: what the client is asked to do, without JSON-RPC id. */
export interface InputRequest {
  method: ClientInputMethod;
  params: JsonObject;
}

/** Internal signal: the answer is not known yet; the round ends with `input_required`. */
class InputPending extends Error {
  override name = 'InputPending';
  constructor() {
    super('client input is pending; the request will end with input_required');
  }
}

const AUTO_KEY_PREFIX: Record<ClientInputMethod, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

export class InputSession {
  readonly pending = new Map<string, InputRequest>();
  readonly responses: JsonObject;
  readonly #context: RequestContext;
  readonly #counters = new Map<string, number>();

  constructor(context: RequestContext, responses: JsonObject) {
    this.#context = context;
    this.responses = responses;
  }

  /**
   * Legacy: a server-to-client request now. Modern: the known answer for `key`, or a rejection that
   * ends this round with `input_required` (the handler runs again, from the start, with the answer).
   */
  ask(method: ClientInputMethod, params: JsonObject, key?: string): Promise<JsonObject> {
    const resolvedKey = key ?? this.#autoKey(method);
    const missing = missingCapability(method, params, this.#context.clientCapabilities);
    if (missing) return handled(Promise.reject(new MissingClientCapabilityError(missing)));
    if (this.#context.era === 'legacy') return this.#askNow(method, params, resolvedKey);
    if (Object.hasOwn(this.responses, resolvedKey)) {
      try {
        return Promise.resolve(checkInputResponse(method, resolvedKey, this.responses[resolvedKey]));
      } catch (error) {
        return handled(Promise.reject(error));
      }
    }
    this.pending.set(resolvedKey, { method, params });
    return handled(Promise.reject(new InputPending()));
  }

  async #askNow(method: ClientInputMethod, params: JsonObject, key: string): Promise<JsonObject> {
    const send = this.#context.sendRequest;
    if (!send)
      throw dispatchError('client_input_unavailable', 'this connection cannot send requests to the client');
    let answer: JsonObject;
    try {
      answer = await send(method, params);
    } catch (error) {
      // The client's JSON-RPC error is about its answer, not this request: the handler sees a LocalError.
      const message = error instanceof Error ? error.message : String(error);
      throw dispatchError('client_input_unavailable', `the client did not answer ${method}: ${message}`, {
        cause: error,
      });
    }
    try {
      return checkInputResponse(method, key, answer);
    } catch (error) {
      throw dispatchError(
        'client_input_unavailable',
        `the client's answer to ${method} was invalid: ${(error as Error).message}`,
      );
    }
  }

  #autoKey(method: ClientInputMethod): string {
    const prefix = AUTO_KEY_PREFIX[method];
    const next = (this.#counters.get(prefix) ?? 0) + 1;
    this.#counters.set(prefix, next);
    return `${prefix}_${next}`;
  }
}

/** Marks a rejected promise as handled so a fire-and-forget call cannot crash the process; awaiting it still throws. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
