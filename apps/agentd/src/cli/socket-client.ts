/** The operator CLI's modern-era (2026-07-28) MCP client over the unix socket (NDJSON). */
import { createConnection, type Socket } from 'node:net';
import {
  encodeFrame,
  FrameDecoder,
  frameTooLarge,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  LocalError,
  WireError,
} from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { AbortedError, type McpClient, modernMeta, type RequestOptions } from './mcp-client.js';

type Pending = {
  resolve: (result: JsonObject) => void;
  reject: (error: Error) => void;
  onNotification: ((notification: JsonRpcNotification) => void) | undefined;
};

export class SocketClient implements McpClient {
  #socket: Socket;
  #decoder: FrameDecoder;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #closedError: Error | undefined;
  readonly #version: string;

  private constructor(socket: Socket, version: string, maxFrameBytes: number | undefined) {
    this.#socket = socket;
    this.#decoder = new FrameDecoder(maxFrameBytes === undefined ? {} : { maxFrameBytes });
    this.#version = version;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('close', () =>
      this.#failAll(new LocalError<AgentdErrorCode>('daemon_unreachable', 'connection closed by agentd')),
    );
    socket.on('error', (error) => this.#failAll(error));
  }

  /** `maxFrameBytes`: the largest answer accepted (default 16 MiB); a larger one fails every pending request. */
  static connect(path: string, version = '0', maxFrameBytes?: number): Promise<SocketClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new SocketClient(socket, version, maxFrameBytes));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        const hint = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? ' (is agentd running?)' : '';
        reject(
          new LocalError<AgentdErrorCode>(
            'daemon_unreachable',
            `cannot connect to ${path}: ${error.message}${hint}`,
            {
              cause: error,
            },
          ),
        );
      });
    });
  }

  request(method: string, params: JsonObject = {}, options: RequestOptions = {}): Promise<JsonObject> {
    if (this.#closedError !== undefined) return Promise.reject(this.#closedError);
    if (options.signal?.aborted) return Promise.reject(new AbortedError('aborted before it was sent'));
    const id = this.#nextId++;
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id,
      method,
      params: { ...params, _meta: modernMeta(params, this.#version) },
    };
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(id)) return;
        // A cancelled request is never answered: the server drops it and stops its work.
        this.#socket.write(
          encodeFrame({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: {
              requestId: id,
              reason: 'cancelled by the agentd CLI',
              _meta: modernMeta({}, this.#version),
            },
          }),
        );
        reject(new AbortedError(`${method} cancelled`));
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => options.signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, {
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
        onNotification: options.onNotification,
      });
      this.#socket.write(encodeFrame(message));
    });
  }

  close(): void {
    this.#socket.end();
  }

  #onData(chunk: Buffer): void {
    for (const frame of this.#decoder.push(chunk)) {
      if (frame.kind === 'oversized') {
        // Its id is unknown (the line was never parsed) and the stream cannot be resynchronised:
        // every pending request fails with the reason, and the connection is closed.
        this.#failAll(frameTooLarge(frame.limit));
        this.#socket.destroy();
        return;
      }
      if (frame.kind === 'notification') {
        // Request-scoped notifications are interleaved on a socket; the CLI has one request in flight.
        for (const pending of this.#pending.values())
          pending.onNotification?.(frame.message as JsonRpcNotification);
        continue;
      }
      if (frame.kind !== 'response') continue;
      const response = frame.message as JsonRpcResponse;
      if (typeof response.id !== 'number') continue;
      const pending = this.#pending.get(response.id);
      if (pending === undefined) continue;
      this.#pending.delete(response.id);
      if ('error' in response) {
        pending.reject(WireError.from(response.error));
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
