/**
 * What `@agentd/dispatch/node`'s stdio and HTTP serving send for one request text. `ContractServer.handle`
 * answers every failure itself; should it still reject (a bug, a subclass), the request that was
 * waiting gets -32603 for its id, and the failure is logged at warn with a running count, so a
 * transport's in-flight bookkeeping never waits on an answer that will not come.
 */
import { refuse } from '@agentd/lifecycle';
import {
  errorFields,
  errorResponse,
  isJsonObject,
  isRequestId,
  type Logger,
  type RequestId,
} from '@agentd/rpc-frame';
import type { ContractServer, HandleRequestOptions } from './contract-server.js';

/** The id of the request in `text`, when it has one a response can carry. */
function idOf(text: string): RequestId | null {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) && isRequestId(value.id) ? value.id : null;
  } catch {
    return null;
  }
}

export class TransportAnswers {
  readonly #server: ContractServer;
  readonly #logger: Logger;
  readonly #transport: string;
  #internalErrors = 0;

  constructor(server: ContractServer, logger: Logger, transport: string) {
    this.#server = server;
    this.#logger = logger;
    this.#transport = transport;
  }

  /** Requests answered -32603 because `handle` rejected. */
  get internalErrors(): number {
    return this.#internalErrors;
  }

  /** The response text for `text`; never rejects. */
  answer(text: string, options: HandleRequestOptions): Promise<string> {
    let pending: Promise<string>;
    try {
      pending = this.#server.handle(text, options);
    } catch (thrown) {
      pending = Promise.reject(thrown);
    }
    return pending.then(undefined, (thrown: unknown) => {
      this.#internalErrors++;
      this.#logger.warn('ContractServer.handle rejected; the request was answered -32603', {
        transport: this.#transport,
        internalErrors: this.#internalErrors,
        ...errorFields(thrown),
      });
      return JSON.stringify(errorResponse(idOf(text), refuse.internalError().toJSON()));
    });
  }
}
