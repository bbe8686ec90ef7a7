/** A minimal modern-era (2026-07-28) MCP client over an NDJSON byte stream, for the operator CLI. */
import { createConnection, type Socket } from 'node:net';
import {
  encodeFrame,
  FrameDecoder,
  type JsonObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
  WireError,
} from '@agentd/rpc-frame';

export const CLIENT_PROTOCOL_VERSION = '2026-07-28';

type Pending = { resolve: (result: JsonObject) => void; reject: (error: Error) => void };

export class SocketClient {
  #socket: Socket;
  #decoder = new FrameDecoder();
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #closedError: Error | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('close', () => this.#failAll(new Error('connection closed by agentd')));
    socket.on('error', (error) => this.#failAll(error));
  }

  static connect(path: string): Promise<SocketClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new SocketClient(socket));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        const hint = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? ' (is agentd running?)' : '';
        reject(new Error(`cannot connect to ${path}: ${error.message}${hint}`));
      });
    });
  }

  /** Sends one request with the modern per-request `_meta` and resolves to its result. */
  request(method: string, params: JsonObject = {}): Promise<JsonObject> {
    if (this.#closedError !== undefined) return Promise.reject(this.#closedError);
    const id = this.#nextId++;
    const meta = {
      'io.modelcontextprotocol/protocolVersion': CLIENT_PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'agentd-cli', version: '0.1.0' },
      ...(typeof params._meta === 'object' && params._meta !== null ? params._meta : {}),
    };
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(encodeFrame(message));
    });
  }

  close(): void {
    this.#socket.end();
  }

  #onData(chunk: Buffer): void {
    for (const frame of this.#decoder.push(chunk)) {
      if (frame.kind !== 'response') continue;
      const response = frame.message as JsonRpcResponse;
      if (typeof response.id !== 'number') continue;
      const pending = this.#pending.get(response.id);
      if (pending === undefined) continue;
      this.#pending.delete(response.id);
      if ('error' in response) {
        pending.reject(new WireError(response.error.code, response.error.message, response.error.data));
      } else {
        pending.resolve(response.result);
      }
    }
  }

  #failAll(error: Error): void {
    this.#closedError ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
