/**
 * WireProfile: how a server that answers a fixed wire contract, rather than MCP as specified,
 * departs from the specification's message handling, as one object passed at one seam
 * (`createServerCore({profile})`). The core still runs everything the profile admits (slots,
 * cancellation, shutdown, telemetry, result envelope); only the answers to the shapes the profile
 * claims differ. Every transport reads the profile from the core it serves and asks nothing else:
 * a stream transport gives every message (id-less ones too, which the profile may answer) its turn
 * as a request; transport-http hands each POST body to the profile whole and answers 200 JSON.
 * Used by `ContractServer` of `@agentd/dispatch/node`.
 */
import type { HeaderReader, Refusal, RequestClass } from '@agentd/lifecycle';
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
  /**
   * Over HTTP: what a POST's headers must satisfy before its body is read (its answers are always
   * JSON, so typically lifecycle's `contentTypeRefusal`, not the specification's Accept rule).
   */
  postHeadersRefusal(headers: HeaderReader): Refusal | undefined;
}
