/** One domain request between admission and answer: its scope, its deferred answer, its queue place. */
import type { JsonRpcResponse, RequestId } from '@agentd/rpc-frame';
import type { RequestScope } from './request-scope.js';

export class InFlight {
  /** The handler's outcome or an early answer (cancel, shutdown), whichever settles it first. */
  readonly answer: Promise<JsonRpcResponse | undefined>;
  /** Set while the request waits for a slot: the queued start, so it can give its place up. */
  queued: (() => void) | undefined;
  /** Set while an external signal (an HTTP request's) can cancel it. */
  onExternalAbort: (() => void) | undefined;
  private resolve!: (response: JsonRpcResponse | undefined) => void;
  private settled = false;

  constructor(
    readonly id: RequestId,
    readonly scope: RequestScope,
    private readonly registry: Map<RequestId, InFlight>,
    private readonly external: AbortSignal | undefined,
  ) {
    this.answer = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  settle(response: JsonRpcResponse | undefined): void {
    if (this.settled) return;
    this.settled = true;
    if (this.registry.get(this.id) === this) this.registry.delete(this.id);
    if (this.onExternalAbort !== undefined) this.external?.removeEventListener('abort', this.onExternalAbort);
    this.resolve(response);
  }
}
