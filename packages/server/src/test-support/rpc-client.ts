/** A minimal NDJSON JSON-RPC peer over a real stream, for tests: raw lines in, parsed messages out. */
import type { Duplex } from 'node:stream';

export type Message = Record<string, unknown> & {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'test-client', version: '1.0.0' },
};

export class RpcClient {
  readonly messages: Message[] = [];
  private buffer = '';
  private waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  private nextId = 1;
  ended = false;
  private endWaiters: Array<() => void> = [];

  constructor(readonly stream: Duplex) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.onData(chunk));
    stream.on('end', () => this.onEnd());
    stream.on('close', () => this.onEnd());
    stream.on('error', () => this.onEnd());
  }

  sendRaw(text: string): void {
    this.stream.write(text);
  }

  send(message: Record<string, unknown>): void {
    this.stream.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and resolves with its response (result or error). */
  request(
    method: string,
    params?: Record<string, unknown>,
    id: string | number = this.nextId++,
  ): Promise<Message> {
    const response = this.waitFor((m) => m.id === id && m.method === undefined);
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return response;
  }

  /** A modern request: `_meta` carries the 2026-07-28 envelope. */
  modern(method: string, params: Record<string, unknown> = {}, id?: string | number): Promise<Message> {
    return this.request(method, { ...params, _meta: { ...MODERN_META, ...(params._meta as object) } }, id);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Resolves with the first message (already received or future) matching `test`. */
  waitFor(test: (m: Message) => boolean, timeoutMs = 5_000): Promise<Message> {
    const seen = this.messages.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting; got ${JSON.stringify(this.messages)}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** Resolves when the server ended or closed the stream. */
  closed(timeoutMs = 5_000): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('stream did not close')), timeoutMs);
      this.endWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    this.stream.destroy();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() !== '') this.receive(JSON.parse(line) as Message);
      newline = this.buffer.indexOf('\n');
    }
  }

  private receive(message: Message): void {
    this.messages.push(message);
    for (const waiter of [...this.waiters]) {
      if (waiter.test(message)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  }

  private onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    for (const resolve of this.endWaiters.splice(0)) resolve();
  }
}
