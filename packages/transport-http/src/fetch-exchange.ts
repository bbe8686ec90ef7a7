/** A Web `Request` and the `Response` it will get, as the host-neutral HTTP exchange. */
import { refuse } from '@agentd/lifecycle';
import { errorResponse } from '@agentd/rpc-frame';
import type { HeaderReader, HttpIncoming, HttpOutgoing } from './http-io.js';
import { httpError } from './local-errors.js';
import { startTimeout, stopTimer, type Timer } from './timer.js';

const encoder = new TextEncoder();

/**
 * How long a request runs before `request.signal` is watched. Reading it makes some hosts build an
 * AbortController per request (@hono/node-server): a few microseconds that answers ready sooner
 * never need. A client that left earlier is seen then, its signal already aborted.
 */
const WATCH_ABORT_AFTER_MS = 20;

/** `scheme://authority/path?query` → `/path`, without building a URL object on the hot path. */
function pathOfUrl(url: string): string {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return '/';
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query !== -1) end = query;
  const hash = url.indexOf('#', start);
  if (hash !== -1 && hash < end) end = hash;
  return url.slice(start, end);
}

export class FetchExchange implements HttpIncoming, HttpOutgoing, HeaderReader {
  readonly method: string;
  readonly path: string;
  readonly remoteAddress: string | undefined;
  readonly response: Promise<Response>;
  readonly #request: Request;
  readonly #headers: Headers;
  #resolve!: (response: Response) => void;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #sent = false;
  #closed = false;
  #listeners: (() => void)[] = [];
  /** The timer that starts watching `request.signal`; `null` once it is watched. */
  #watch: Timer | null | undefined;
  readonly seesCloseOnWrite = true;

  constructor(request: Request, remoteAddress: string | undefined) {
    this.#request = request;
    this.#headers = request.headers;
    this.method = request.method;
    this.path = pathOfUrl(request.url);
    this.remoteAddress = remoteAddress;
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  #watchAbort(): void {
    this.#watch = null;
    const signal = this.#request.signal as AbortSignal | undefined;
    if (signal?.aborted) this.#finish();
    else signal?.addEventListener('abort', () => this.#finish(), { once: true });
  }

  get headers(): HeaderReader {
    return this;
  }

  /** HeaderReader: the request's headers; `Host` falls back to the URL's authority (a Request built in code has none). */
  get(name: string): string | null {
    const value = this.#headers.get(name);
    if (value !== null || name !== 'host') return value;
    const url = this.#request.url;
    const start = url.indexOf('://') + 3;
    const end = url.indexOf('/', start);
    return url.slice(start, end === -1 ? url.length : end);
  }

  url(): string {
    return this.#request.url;
  }

  async readText(limit: number): Promise<string> {
    const declared = this.#headers.get('content-length');
    if (declared !== null && Number(declared) > limit) {
      throw httpError('body_too_large', `body of ${declared} bytes exceeds ${limit}`);
    }
    // A declared length bounds the body already (hosts enforce it), and `text()` is the hosts'
    // fast path (@hono/node-server skips building a full Request); otherwise read with a limit.
    if (declared !== null) return this.#request.text();
    const body = this.#request.body;
    if (body === null) return '';
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => undefined);
        throw httpError('body_too_large', `body exceeds ${limit} bytes`);
      }
      chunks.push(value);
    }
    if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
    const all = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    return new TextDecoder().decode(all);
  }

  get sent(): boolean {
    return this.#sent || this.#closed;
  }

  send(status: number, headers: Readonly<Record<string, string>>, body?: string): void {
    if (this.sent) return;
    this.#sent = true;
    this.#resolve(new Response(body ?? null, { status, headers }));
    // A plain answer is complete once handed over.
    queueMicrotask(() => this.#finish());
  }

  open(status: number, headers: Readonly<Record<string, string>>): void {
    if (this.sent) return;
    this.#sent = true;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#finish(),
      },
      // Nothing is pulled ahead: desiredSize is minus the bytes the client has not taken yet.
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    this.#resolve(new Response(stream, { status, headers }));
  }

  write(chunk: string): void {
    if (this.#closed || this.#controller === undefined) return;
    this.#controller.enqueue(encoder.encode(chunk));
  }

  get bufferedBytes(): number {
    const desired = this.#controller?.desiredSize;
    return desired === null || desired === undefined ? 0 : -desired;
  }

  end(): void {
    if (this.#closed) return;
    try {
      this.#controller?.close();
    } catch {
      // Already cancelled by the client.
    }
    this.#finish();
  }

  destroy(): void {
    if (this.#closed) return;
    if (!this.#sent) {
      this.#sent = true;
      this.#resolve(new Response(null, { status: 500 }));
    }
    try {
      this.#controller?.error(new Error('stream cut: the client is not reading'));
    } catch {
      // Already closed.
    }
    this.#finish();
  }

  /**
   * A promise made now belongs to this request; one resolved from another request runs its
   * continuation back in this one's context (workerd's cross-request promise resolution), so
   * the tasks run where this request's objects may be used.
   */
  runner(): (task: () => void) => void {
    const tasks: (() => void)[] = [];
    let wake: (() => void) | undefined;
    const arm = (): void => {
      new Promise<void>((resolve) => {
        wake = resolve;
      }).then(() => {
        wake = undefined;
        for (let task = tasks.shift(); task !== undefined; task = tasks.shift()) task();
        if (!this.#closed) arm();
      });
    };
    arm();
    return (task) => {
      tasks.push(task);
      wake?.();
    };
  }

  onClose(listener: () => void): void {
    if (this.#closed) {
      listener();
      return;
    }
    this.#listeners.push(listener);
    this.#watch ??= startTimeout(() => this.#watchAbort(), WATCH_ABORT_AFTER_MS);
  }

  /**
   * The route ended without answering: the client went away first (nobody reads this), or a bug.
   * The host still gets a Response, so its promise never dangles.
   */
  settle(): void {
    if (this.#sent) return;
    this.#sent = true;
    this.#resolve(
      new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { 'content-type': 'application/json' } }),
    );
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    stopTimer(this.#watch ?? undefined);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

const INTERNAL_ERROR_BODY = JSON.stringify(errorResponse(null, refuse.internalError().toJSON()));
