/** Server-to-client requests of the legacy era: ids, the wait for the client's answer, timeout and abort. */
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcSuccessResponse,
  notification,
  WireError,
} from '@agentd/rpc-frame';
import { serverError } from './local-errors.js';

interface Pending {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

export class ClientRequests {
  private next = 0;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly timeoutMs: number) {}

  get size(): number {
    return this.pending.size;
  }

  /**
   * Sends `method` through `send` and resolves with the client's result. Rejects with the client's
   * WireError, or a LocalError: `client_request_timeout`, `cancelled` (signal; the client is told
   * with `notifications/cancelled`), `disconnected`, `not_sent` (the writer refused it).
   */
  send(
    method: string,
    params: JsonObject,
    sendMessage: (m: JsonRpcMessage, force?: boolean) => boolean,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    if (signal.aborted)
      return Promise.reject(serverError('cancelled', `${method}: the request was cancelled`));
    this.next += 1;
    // String ids in their own namespace never collide with anything the client sends.
    const id = `srv-${this.next}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const onAbort = (): void => {
        cleanup();
        sendMessage(
          notification('notifications/cancelled', { requestId: id, reason: 'request cancelled' }),
          true,
        );
        reject(serverError('cancelled', `${method}: the request was cancelled`));
      };
      const timer = setTimeout(() => {
        cleanup();
        sendMessage(notification('notifications/cancelled', { requestId: id, reason: 'timed out' }));
        reject(
          serverError(
            'client_request_timeout',
            `${method}: no answer from the client in ${this.timeoutMs} ms`,
          ),
        );
      }, this.timeoutMs);
      // Workers (workerd, Deno's web timers) hand back a plain number: nothing to unref there.
      (timer as { unref?: () => void }).unref?.();
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      if (!sendMessage({ jsonrpc: '2.0', id, method, params })) {
        this.pending.get(id)?.reject(serverError('not_sent', `${method}: the connection cannot carry it`));
      }
    });
  }

  /** Routes a client response; false when it answers nothing we asked (a stray response). */
  settle(response: JsonRpcSuccessResponse | JsonRpcErrorResponse): boolean {
    if (typeof response.id !== 'string') return false;
    const pending = this.pending.get(response.id);
    if (pending === undefined) return false;
    if ('result' in response) pending.resolve(isJsonObject(response.result) ? response.result : {});
    else pending.reject(WireError.from(response.error));
    return true;
  }

  /** Rejects everything outstanding (the connection is gone). */
  rejectAll(): void {
    for (const pending of [...this.pending.values()]) {
      pending.reject(serverError('disconnected', 'the connection closed before the client answered'));
    }
  }
}
