/** The operator CLI's modern-era (2026-07-28) MCP client over the unix socket (NDJSON). */
import { createConnection, type Socket } from 'node:net';
import { type JsonObject, LocalError, RpcPeer } from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import { AbortedError, type McpClient, modernMeta, type RequestOptions } from './mcp-client.js';

export class SocketClient implements McpClient {
  readonly #socket: Socket;
  readonly #peer: RpcPeer;
  readonly #version: string;

  private constructor(socket: Socket, version: string, maxFrameBytes: number | undefined) {
    this.#socket = socket;
    this.#version = version;
    this.#peer = new RpcPeer({
      write: (text) => socket.write(text),
      ...(maxFrameBytes === undefined ? {} : { maxFrameBytes }),
      // An oversized answer has already failed every pending request; the stream cannot go on.
      onViolation: (violation) => {
        if (violation.kind === 'oversized') socket.destroy();
      },
    });
    socket.on('data', (chunk: Buffer) => this.#peer.push(chunk));
    socket.on('end', () => this.#peer.end());
    socket.on('close', () =>
      this.#peer.close(new LocalError<AgentdErrorCode>('daemon_unreachable', 'connection closed by agentd')),
    );
    socket.on('error', (error) => this.#peer.close(error));
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

  /** Resolves with the result; an error answer rejects with a WireError, an abort with an AbortedError. */
  async request(method: string, params: JsonObject = {}, options: RequestOptions = {}): Promise<JsonObject> {
    const { signal, onNotification } = options;
    if (signal?.aborted) throw new AbortedError('aborted before it was sent');
    const { outcome } = this.#peer.request(
      method,
      { ...params, _meta: modernMeta(params, this.#version) },
      {
        ...(signal === undefined ? {} : { signal }),
        ...(onNotification === undefined ? {} : { onNotification }),
        cancelParams: { reason: 'cancelled by the agentd CLI', _meta: modernMeta({}, this.#version) },
      },
    );
    const answer = await outcome;
    if (answer.ok) return answer.result;
    if (answer.error instanceof LocalError && answer.error.code === 'aborted' && signal?.aborted) {
      throw new AbortedError(`${method} cancelled`);
    }
    throw answer.error;
  }

  close(): void {
    this.#socket.end();
  }
}
