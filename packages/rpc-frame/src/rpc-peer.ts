/**
 * One end of an NDJSON JSON-RPC connection: its requests out and their answers matched by id, the
 * other side's notifications routed to the request they belong to, its requests answered, and
 * one place that settles everything still waiting when the connection ends. Runtime-neutral: the
 * caller owns the transport (a socket, a child's stdio), feeds its bytes in and gives a sink.
 */
import type { InvalidMessage } from './classify.js';
import { isJsonObject, isRequestId } from './classify.js';
import { encodeFrame } from './encode-frame.js';
import { JsonRpcErrorCode } from './error-codes.js';
import { FrameDecoder } from './frame-decoder.js';
import { aborted, frameTooLarge, type RpcFrameErrorCode } from './local-errors.js';
import {
  errorResponse,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  notification,
  type RequestId,
  successResponse,
} from './messages.js';
import { LocalError, toWireError, WireError } from './wire-error.js';

/**
 * What a request came to. `error` is a `WireError` when the other side answered with one, else a
 * `LocalError`: `aborted`, `frame_too_large`, `closed`, or the error `close` was given.
 */
type RpcOutcome = { ok: true; result: JsonObject } | { ok: false; error: Error };

/** The answer to one of the other side's requests. */
type RpcAnswer = { result: JsonObject } | { error: JsonRpcErrorObject };

/** A line that is not a JSON-RPC message, or one longer than `maxFrameBytes`. */
type RpcViolation = InvalidMessage | { kind: 'oversized'; limit: number };

interface RpcPeerOptions {
  /** Where frames go (one complete line per call). */
  write: (text: string) => void;
  /** Largest line accepted, in bytes (default 16 MiB). A longer one closes the peer. */
  maxFrameBytes?: number;
  /** A notification no in-flight request took (see `request`). */
  onNotification?: (message: JsonRpcNotification) => void;
  /**
   * A request from the other side: return its answer, or `undefined` to answer later with
   * `respond` (or not at all). A throw answers -32603. Without a handler every request gets -32601.
   */
  onRequest?: (message: JsonRpcRequest) => RpcAnswer | undefined;
  /**
   * A line that is not a JSON-RPC message (decoding goes on; call `close` to stop), or an
   * oversized one: the stream cannot be resynchronised, so the peer has already closed itself
   * with `frame_too_large` and the caller drops the transport.
   */
  onViolation?: (violation: RpcViolation) => void;
  /** A response whose id no request waits for (never sent, answered twice, or answered after an abort). */
  onStrayResponse?: (response: JsonRpcResponse) => void;
}

interface RequestOptions {
  /**
   * The notifications that belong to this request while it is in flight: a progress notification
   * whose `progressToken` is the one in this request's `_meta`, and any notification that names
   * no token (a log message; on one stream the other side only sends those for requests in flight).
   */
  onNotification?: (message: JsonRpcNotification) => void;
  /** Aborting settles the request as `aborted` and sends `notifications/cancelled` if it was sent. */
  signal?: AbortSignal;
  /** More params for that `notifications/cancelled` (a `reason`, a `_meta`). */
  cancelParams?: JsonObject;
}

interface Pending {
  readonly method: string;
  readonly progressToken: unknown;
  readonly onNotification: ((message: JsonRpcNotification) => void) | undefined;
  readonly settle: (outcome: RpcOutcome) => void;
}

export class RpcPeer {
  readonly #options: RpcPeerOptions;
  readonly #decoder: FrameDecoder;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closedWith: Error | undefined;

  constructor(options: RpcPeerOptions) {
    this.#options = options;
    this.#decoder = new FrameDecoder(
      options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes },
    );
  }

  /** Requests sent and not settled yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Sends a request. `outcome` settles exactly once: with the answer, or when the signal aborts it
   * or the peer closes. After `close` nothing is sent and it settles with the close error at once.
   */
  request(
    method: string,
    params?: JsonObject,
    options: RequestOptions = {},
  ): { id: number; outcome: Promise<RpcOutcome> } {
    const id = this.#nextId++;
    if (this.#closedWith !== undefined) return { id, outcome: failed(this.#closedWith) };
    const { signal } = options;
    if (signal?.aborted) return { id, outcome: failed(aborted(`${method} aborted before it was sent`)) };
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    // Params JSON cannot encode (a BigInt, a cycle) throw here, before anything is kept.
    const text = encodeFrame(message);
    let resolve: (outcome: RpcOutcome) => void = () => {};
    const outcome = new Promise<RpcOutcome>((settle) => {
      resolve = settle;
    });
    const onAbort = () => this.#cancel(id, options.cancelParams);
    this.#pending.set(id, {
      method,
      progressToken: isJsonObject(params?._meta) ? params._meta.progressToken : undefined,
      onNotification: options.onNotification,
      settle: (result) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#options.write(text);
    return { id, outcome };
  }

  /** Sends a notification (dropped once closed: the connection is gone). */
  notify(method: string, params?: JsonObject): void {
    if (this.#closedWith === undefined) this.#options.write(encodeFrame(notification(method, params)));
  }

  /** Answers one of the other side's requests (dropped once closed). */
  respond(id: RequestId, answer: RpcAnswer): void {
    if (this.#closedWith !== undefined) return;
    const response = 'error' in answer ? errorResponse(id, answer.error) : successResponse(id, answer.result);
    this.#options.write(encodeFrame(response));
  }

  /** Feeds bytes read from the other side; handlers run before it returns. */
  push(chunk: Uint8Array | string): void {
    this.#accept(this.#decoder.push(chunk));
  }

  /** The other side's input ended: a last line without its `\n` still counts. */
  end(): void {
    this.#accept(this.#decoder.end());
  }

  /**
   * Ends the connection: every pending request settles with `error` (default: `LocalError`
   * `closed`), later requests settle with it at once, input is ignored and nothing more is
   * written. The first close wins.
   */
  close(error: Error = new LocalError<RpcFrameErrorCode>('closed', 'the connection closed')): void {
    if (this.#closedWith !== undefined) return;
    this.#closedWith = error;
    this.#decoder.close();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of pending) entry.settle({ ok: false, error });
  }

  #cancel(id: number, extra: JsonObject | undefined): void {
    const entry = this.#take(id);
    if (entry === undefined) return;
    // A cancelled request is never answered: the other side drops it and stops its work.
    this.notify('notifications/cancelled', { ...extra, requestId: id });
    entry.settle({ ok: false, error: aborted(`${entry.method} cancelled`) });
  }

  #take(id: RequestId): Pending | undefined {
    const entry = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (entry !== undefined) this.#pending.delete(id as number);
    return entry;
  }

  #accept(frames: ReturnType<FrameDecoder['push']>): void {
    for (const frame of frames) {
      // A handler may close the peer: the rest of the chunk is then ignored.
      if (this.#closedWith !== undefined) return;
      if (frame.kind === 'oversized') {
        // Its id is unknown (the line was never parsed): every pending request fails with the reason.
        this.close(frameTooLarge(frame.limit));
        this.#options.onViolation?.(frame);
      } else if (frame.kind === 'invalid') this.#options.onViolation?.(frame);
      else if (frame.kind === 'response') this.#settle(frame.message);
      else if (frame.kind === 'notification') this.#route(frame.message);
      else this.#answer(frame.message);
    }
  }

  #settle(response: JsonRpcResponse): void {
    const entry = isRequestId(response.id) ? this.#take(response.id) : undefined;
    if (entry === undefined) this.#options.onStrayResponse?.(response);
    else if ('error' in response) entry.settle({ ok: false, error: WireError.from(response.error) });
    else entry.settle({ ok: true, result: response.result });
  }

  #route(message: JsonRpcNotification): void {
    const token = message.params?.progressToken;
    let taken = false;
    for (const [id, entry] of [...this.#pending]) {
      // An earlier listener may have aborted this request in the meantime.
      if (entry.onNotification === undefined || this.#pending.get(id) !== entry) continue;
      if (token !== undefined && token !== entry.progressToken) continue;
      taken = true;
      entry.onNotification(message);
    }
    if (!taken) this.#options.onNotification?.(message);
  }

  #answer(request: JsonRpcRequest): void {
    const handler = this.#options.onRequest;
    let answer: RpcAnswer | undefined;
    if (handler === undefined) {
      answer = { error: { code: JsonRpcErrorCode.MethodNotFound, message: 'Method not found' } };
    } else {
      try {
        answer = handler(request);
      } catch (thrown) {
        answer = { error: toWireError(thrown).toJSON() };
      }
    }
    if (answer !== undefined) this.respond(request.id, answer);
  }
}

function failed(error: Error): Promise<RpcOutcome> {
  return Promise.resolve({ ok: false, error });
}
