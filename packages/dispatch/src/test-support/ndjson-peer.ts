/** Test helper: a unix socket served by the real server core, and a small NDJSON JSON-RPC client that can answer server requests. */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@agentd/rpc-frame';
import { type PeerOrigin, type ServerCore, serveConnection } from '@agentd/server';

export type Message = JsonObject & {
  id?: string | number;
  method?: string;
  params?: JsonObject;
  result?: JsonObject;
  error?: JsonObject;
};

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

export class NdjsonPeer {
  readonly received: Message[] = [];
  #buffer = '';
  #waiters: { test: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  /** Answers server-to-client requests (legacy elicitation, sampling, roots). */
  onRequest: ((message: Message) => JsonObject) | undefined;

  constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let nl = this.#buffer.indexOf('\n'); nl !== -1; nl = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line.trim() !== '') this.#deliver(JSON.parse(line) as Message);
      }
    });
  }

  #deliver(message: Message): void {
    this.received.push(message);
    if (message.method !== undefined && message.id !== undefined && this.onRequest) {
      this.send({ jsonrpc: '2.0', id: message.id, result: this.onRequest(message) });
    }
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.test(message)) return true;
      waiter.resolve(message);
      return false;
    });
  }

  send(message: JsonObject): void {
    this.socket.write(`${JSON.stringify(message)}\n`);
  }

  waitFor(test: (m: Message) => boolean): Promise<Message> {
    const found = this.received.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }

  request(method: string, params: JsonObject | undefined, id: string | number): Promise<Message> {
    const response = this.waitFor((m) => m.id === id && m.method === undefined);
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return response;
  }

  modern(
    method: string,
    params: JsonObject,
    id: string | number,
    capabilities: JsonObject = {},
  ): Promise<Message> {
    const _meta = {
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
      ...(params._meta as object),
    };
    return this.request(method, { ...params, _meta }, id);
  }
}

export interface SocketHarness {
  connect(origin: PeerOrigin): Promise<NdjsonPeer>;
  close(): Promise<void>;
}

/** One unix socket per origin, so a test can have management and stdio peers on one core. */
export async function socketHarness(core: ServerCore): Promise<SocketHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-dispatch-'));
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const paths = new Map<PeerOrigin, string>();
  for (const origin of ['management', 'stdio'] as const) {
    const path = join(dir, `${origin}.sock`);
    const server = net.createServer((socket) => {
      sockets.add(socket);
      serveConnection(socket, origin, core, { transport: 'unix' });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    servers.push(server);
    paths.set(origin, path);
  }
  return {
    connect: (origin) =>
      new Promise((resolve, reject) => {
        const socket = net.connect({ path: paths.get(origin) as string });
        sockets.add(socket);
        socket.once('connect', () => resolve(new NdjsonPeer(socket)));
        socket.once('error', reject);
      }),
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await core.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
