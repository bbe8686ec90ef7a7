/** A raw NDJSON JSON-RPC client: pipelined writes, answers matched by id, no client library. */
import type { Readable, Writable } from 'node:stream';

export interface RpcResponse {
  id: string | number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

interface Pending {
  resolve: (response: RpcResponse) => void;
  reject: (error: Error) => void;
}

export class NdjsonChannel {
  readonly #output: Writable;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #buffered = '';
  #failure: Error | undefined;
  /** Bytes of the last answer line, for list sizes. */
  lastLineBytes = 0;

  constructor(input: Readable, output: Writable) {
    this.#output = output;
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.#onData(chunk));
    input.on('error', (error: Error) => this.#fail(error));
    input.on('close', () => this.#fail(new Error('the server closed the stream')));
    output.on('error', (error: Error) => this.#fail(error));
  }

  /** Sends a request (the id is the channel's) and resolves with its answer. */
  request(method: string, params: Record<string, unknown>): Promise<RpcResponse> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#output.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.#output.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  #onData(chunk: string): void {
    this.#buffered += chunk;
    let newline = this.#buffered.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffered.slice(0, newline);
      this.#buffered = this.#buffered.slice(newline + 1);
      if (line.trim().length > 0) this.#onLine(line);
      newline = this.#buffered.indexOf('\n');
    }
  }

  #onLine(line: string): void {
    const message = JSON.parse(line) as Partial<RpcResponse> & { method?: string };
    if (message.method !== undefined || typeof message.id !== 'number') return;
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id);
    this.lastLineBytes = Buffer.byteLength(line);
    pending.resolve(message as RpcResponse);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
