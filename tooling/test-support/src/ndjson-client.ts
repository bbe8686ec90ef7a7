/**
 * The one NDJSON JSON-RPC test client: raw or JSON lines out over any byte stream (a socket, or a
 * child's stdin/stdout), parsed messages in, with waits that fail loudly instead of hanging.
 */

import { createConnection } from 'node:net';
import type { Duplex, Readable, Writable } from 'node:stream';
import { MetaKey } from '@agentd/lifecycle';
import { frameTooLarge, type JsonObject, RpcPeer } from '@agentd/rpc-frame';
import { MODERN_META, TEST_CLIENT_INFO } from './modern-meta.js';

export type Json = Record<string, unknown>;

export type Message = Json & {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Json;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
};

/** How long a wait (and so a request) may take before it rejects naming what it waited for. */
const DEFAULT_WAIT_MS = 20_000;

interface Waiter {
  test: (message: Message) => boolean;
  resolve: (message: Message) => void;
  reject: (error: Error) => void;
}

export class NdjsonClient {
  readonly messages: Message[] = [];
  /** True once the input ended, closed or failed. */
  ended = false;
  /** Answers server-to-client requests (legacy elicitation, sampling, roots) with this result. */
  onRequest: ((message: Message) => JsonObject) | undefined;
  readonly input: Readable;
  readonly output: Writable;
  /** Decodes what the server sends and answers its requests; the test reads the log, not outcomes. */
  readonly #peer: RpcPeer;
  /** Set once the peer sent what cannot be read (an oversized or non-JSON line): every wait rejects with it. */
  #failure: Error | undefined;
  #nextId = 1;
  #waiters: Waiter[] = [];
  #endWaiters: Array<() => void> = [];

  /**
   * One duplex (a socket), or a separate input and output (a child's stdout and stdin). A line
   * longer than `maxFrameBytes` (default 16 MiB) fails every wait with `frame_too_large`.
   */
  constructor(input: Readable, output: Writable = input as Duplex, maxFrameBytes?: number) {
    this.input = input;
    this.output = output;
    this.#peer = new RpcPeer({
      write: (text) => this.output.write(text),
      ...(maxFrameBytes === undefined ? {} : { maxFrameBytes }),
      onNotification: (message) => this.#receive(message as Message),
      onStrayResponse: (message) => this.#receive(message as Message),
      onRequest: (message) => {
        this.#receive(message as Message);
        // Unanswered here, a test answers it itself (send) or leaves it waiting.
        return this.onRequest === undefined ? undefined : { result: this.onRequest(message as Message) };
      },
      onViolation: (violation) => {
        if (violation.kind === 'oversized') {
          // The oversized line's id is unknown: every wait fails, and the stream cannot go on.
          this.#fail(frameTooLarge(violation.limit));
          this.input.destroy();
        } else if (violation.value !== undefined) {
          // A JSON value that is not JSON-RPC is still what the peer sent: tests look at it as it is.
          this.#receive(violation.value as Message);
        } else this.#fail(new Error(`the peer sent a line that is not JSON (${violation.reason})`));
      },
    });
    input.on('data', (chunk: Buffer | string) => this.#peer.push(chunk));
    input.on('end', () => this.#peer.end());
    input.on('end', () => this.#onEnd());
    input.on('close', () => this.#onEnd());
    input.on('error', () => this.#onEnd());
  }

  /** Dials a unix socket. */
  static connect(path: string, maxFrameBytes?: number): Promise<NdjsonClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => resolve(new NdjsonClient(socket, socket, maxFrameBytes)));
      socket.once('error', reject);
    });
  }

  /** The socket, when the client was built over one duplex. */
  get stream(): Duplex {
    return this.input as Duplex;
  }

  /** Writes `text` exactly as given (malformed input, partial lines, several lines at once). */
  sendRaw(text: string): void {
    this.output.write(text);
  }

  /** Writes one message as a JSON line. */
  send(message: object): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** Sends a request and resolves with its response (result or error). */
  request(method: string, params?: Json, id: string | number = this.#nextId++): Promise<Message> {
    const response = this.waitFor(
      (m) => m.id === id && m.method === undefined,
      DEFAULT_WAIT_MS,
      `the response to ${method} (id ${JSON.stringify(id)})`,
    );
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return response;
  }

  /**
   * A modern request: `_meta` carries the 2026-07-28 envelope (`capabilities` as the client's, when
   * given); keys in `params._meta` win.
   */
  modern(method: string, params: Json = {}, id?: string | number, capabilities?: Json): Promise<Message> {
    const _meta = {
      ...MODERN_META,
      ...(capabilities === undefined ? {} : { [MetaKey.clientCapabilities]: capabilities }),
      ...(params._meta as Json | undefined),
    };
    return this.request(method, { ...params, _meta }, id);
  }

  /** A modern request that resolves with its result and throws on an error response. */
  async modernResult(method: string, params: Json = {}): Promise<Json> {
    return resultOf(method, await this.modern(method, params));
  }

  /** A legacy request (after initialize) that resolves with its result and throws on an error response. */
  async legacy(method: string, params?: Json): Promise<Json> {
    return resultOf(method, await this.request(method, params));
  }

  /** The legacy handshake: initialize, then notifications/initialized. */
  async initialize(version = '2025-11-25', capabilities: Json = {}): Promise<Json> {
    const result = await this.legacy('initialize', {
      protocolVersion: version,
      capabilities,
      clientInfo: TEST_CLIENT_INFO,
    });
    this.notify('notifications/initialized');
    return result;
  }

  notify(method: string, params?: Json): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Notifications received so far with this method. */
  notifications(method: string): Message[] {
    return this.messages.filter((m) => m.method === method && m.id === undefined);
  }

  /** Resolves with the first message (already received or future) matching `test`. */
  waitFor(test: (m: Message) => boolean, timeoutMs = DEFAULT_WAIT_MS, what = 'a message'): Promise<Message> {
    const seen = this.messages.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        const got = JSON.stringify(this.messages);
        reject(
          new Error(
            `timed out waiting for ${what}; got ${got.length > 2_000 ? `${got.slice(0, 2_000)}…` : got}`,
          ),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        test,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /** Resolves when the server ended or closed the stream. */
  closed(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the stream did not close')), timeoutMs);
      this.#endWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Ends our side (EOF: stdin closed, or a socket's half-close); answers may still arrive. */
  end(): void {
    this.output.end();
  }

  /** Drops the connection at once. */
  close(): void {
    this.input.destroy();
    if (this.output !== (this.input as unknown)) this.output.destroy();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }

  #receive(message: Message): void {
    this.messages.push(message);
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) {
      if (waiter.test(message)) waiter.resolve(message);
      else this.#waiters.push(waiter);
    }
  }

  #onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    for (const resolve of this.#endWaiters.splice(0)) resolve();
  }
}

function resultOf(method: string, response: Message): Json {
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result as Json;
}
