/** Test client speaking raw NDJSON JSON-RPC over any byte stream (unix socket or a child's stdio). */
import { createConnection } from 'node:net';
import type { Readable, Writable } from 'node:stream';

export type Json = Record<string, unknown>;

export const MODERN = '2026-07-28';

export function modernMeta(extra: Json = {}): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'agentd-e2e', version: '0' },
    ...extra,
  };
}

export class NdjsonClient {
  readonly messages: Json[] = [];
  #buffer = '';
  #nextId = 1;
  #waiters: { predicate: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  closed = false;

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.#onData(chunk));
    input.on('close', () => {
      this.closed = true;
    });
  }

  static connect(path: string): Promise<NdjsonClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => resolve(new NdjsonClient(socket, socket)));
      socket.once('error', reject);
    });
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let nl = this.#buffer.indexOf('\n');
    while (nl !== -1) {
      const line = this.#buffer.slice(0, nl).trim();
      this.#buffer = this.#buffer.slice(nl + 1);
      nl = this.#buffer.indexOf('\n');
      if (line === '') continue;
      const message = JSON.parse(line) as Json;
      this.messages.push(message);
      for (const waiter of [...this.#waiters]) {
        if (waiter.predicate(message)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  }

  /** Resolves with the first message (already received or future) matching the predicate. */
  waitFor(predicate: (m: Json) => boolean, timeoutMs = 15_000, what = 'message'): Promise<Json> {
    const seen = this.messages.find(predicate);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.#waiters.push({
        predicate,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  notifications(method: string): Json[] {
    return this.messages.filter((m) => m.method === method && m.id === undefined);
  }

  write(message: Json): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and resolves with the full response (result or error). */
  async send(method: string, params?: Json, id: number | string = this.#nextId++): Promise<Json> {
    this.write(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
    );
    return this.waitFor(
      (m) => m.id === id && (m.result !== undefined || m.error !== undefined),
      20_000,
      `response to ${method}`,
    );
  }

  /** A modern-era request; resolves with the result, throws on error. */
  async modern(method: string, params: Json = {}): Promise<Json> {
    const response = await this.send(method, { ...params, _meta: modernMeta() });
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Json;
  }

  /** A legacy-era request (after initialize); resolves with the result, throws on error. */
  async legacy(method: string, params?: Json): Promise<Json> {
    const response = await this.send(method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Json;
  }

  async initialize(version = '2025-11-25'): Promise<Json> {
    const result = await this.legacy('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'agentd-e2e', version: '0' },
    });
    this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return result;
  }

  nextId(): number {
    return this.#nextId++;
  }

  close(): void {
    this.output.end();
  }
}

/** The JSON in a tool result's structuredContent, else its first text block. */
export function toolValue(result: Json): Json {
  if (result.structuredContent !== undefined) return result.structuredContent as Json;
  const content = result.content as { text?: string }[] | undefined;
  return JSON.parse(content?.[0]?.text ?? 'null') as Json;
}

/** The JSON body of a resources/read result. */
export function resourceValue(result: Json): Json {
  const contents = result.contents as { text?: string }[];
  return JSON.parse(contents[0]?.text ?? 'null') as Json;
}
