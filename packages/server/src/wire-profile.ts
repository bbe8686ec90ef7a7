/**
 * WireProfile: how a server that answers a fixed wire contract, rather than MCP as specified,
 * departs from the specification's message handling. The core still runs everything the profile
 * admits (slots, cancellation, shutdown, telemetry, result envelope); only the answers to the
 * shapes the profile claims differ. Used by `ContractServer` of `@agentd/dispatch/node`.
 */
import type { RequestClass } from '@agentd/lifecycle';
import type { Classified, JsonRpcRequest, JsonRpcResponse, RequestId } from '@agentd/rpc-frame';

export type Admission =
  /** Send `response` as the answer, even to a message the specification would leave unanswered. */
  | { readonly kind: 'answer'; readonly response: JsonRpcResponse }
  /**
   * Run `request` as a domain request of the era `classified` names. Its answer carries `answerId`
   * instead of the request's id: an id-less message the profile answers runs under an id the
   * profile minted, and is answered with `id: null`.
   */
  | {
      readonly kind: 'run';
      readonly request: JsonRpcRequest;
      readonly classified: RequestClass;
      readonly answerId: RequestId | null;
    };

export interface WireProfile {
  /** Sees every decoded message (invalid ones and notifications too) before the core routes it. */
  admit(frame: Classified): Admission;
}
