/** InputRequired: thrown by a handler that cannot finish without client input (the stateless tool-server contract's exception). */
import { brandErrorClass, type JsonObject } from '@agentd/rpc-frame';

/**
 * `requests` is normally a map of `{key: {method, params}}` input requests (MCP `inputRequests`);
 * the stateless tool-server contract also allows any JSON shape, which `ContractServer` passes through as `requests`.
 */
export class InputRequired extends Error {
  override name = 'InputRequired';
  readonly requests: JsonObject | readonly unknown[];

  constructor(requests: JsonObject | readonly unknown[]) {
    super('tool execution needs additional client input');
    this.requests = requests;
  }
}

// Recognised across installed copies of this package (a handler built against another copy throws it).
brandErrorClass(InputRequired, '@agentd/dispatch/InputRequired');
