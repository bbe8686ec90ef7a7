/** Tests only: a tiny NDJSON JSON-RPC peer over any Duplex (raw lines out, parsed messages in). */
import type { Duplex } from 'node:stream';

export type Message = {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'vsock-test-client', version: '1.0.0' },
};

export class NdjsonClient {
  readonly messages: Message[] = [];
  #buffer = '';
  #nextId = 1;
  #waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  readonly ended: Promise<void>;

  constructor(readonly stream: Duplex) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.#onData(chunk));
    this.ended = new Promise((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
  }

  send(line: string): void {
    this.stream.write(line.endsWith('\n') ? line : `${line}\n`);
  }

  request(
    method: string,
    params?: Record<string, unknown>,
    id: string | number = this.#nextId++,
  ): Promise<Message> {
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return this.waitFor((m) => m.id === id && m.method === undefined);
  }

  /** A modern (2026-07-28) request: `_meta` carries the protocol version and client facts. */
  modern(method: string, params: Record<string, unknown> = {}, id?: string | number): Promise<Message> {
    const meta = { ...MODERN_META, ...(params._meta as Record<string, unknown> | undefined) };
    return this.request(method, { ...params, _meta: meta }, id);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
  }

  waitFor(test: (m: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    for (let at = this.#buffer.indexOf('\n'); at >= 0; at = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + 1);
      const message = JSON.parse(line) as Message;
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test(message)) return true;
        w.resolve(message);
        return false;
      });
    }
  }
}
