/**
 * One MCP caller of the supervisor benchmark: a raw NDJSON connection to agentd's unix socket
 * (2026-07-28, no handshake) that spawns one streaming run synchronously and records, for each
 * progress notification, the latency from the agent's write (the time in its message) to arrival.
 */
import { connect, type Socket } from 'node:net';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';

const now = (): number => performance.timeOrigin + performance.now();

const META = {
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: { name: 'agentd-bench', version: '0.0.0' },
};

interface Message {
  id?: number;
  method?: string;
  params?: { message?: string };
  result?: { isError?: boolean; structuredContent?: { state?: string } };
  error?: unknown;
}

export class StreamClient {
  readonly #socket: Socket;
  #buffered = '';
  #onMessage: (message: Message) => void = () => {};

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffered += chunk;
      let newline = this.#buffered.indexOf('\n');
      while (newline !== -1) {
        const line = this.#buffered.slice(0, newline);
        this.#buffered = this.#buffered.slice(newline + 1);
        if (line.trim() !== '') this.#onMessage(JSON.parse(line) as Message);
        newline = this.#buffered.indexOf('\n');
      }
    });
  }

  static async connect(path: string): Promise<StreamClient> {
    const socket = connect(path);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new StreamClient(socket);
  }

  /** Spawns `agent` with the stream instruction; resolves with the events' count once the run ended. */
  stream(agent: string, instruction: string, latencies: number[]): Promise<number> {
    let received = 0;
    return new Promise((resolve, reject) => {
      this.#onMessage = (message) => {
        if (message.method === 'notifications/progress') {
          latencies.push(now() - Number(message.params?.message?.slice(2)));
          received += 1;
        } else if (message.id === 1) {
          const state = message.result?.structuredContent?.state;
          if (message.error !== undefined || message.result?.isError === true || state !== 'succeeded')
            reject(new Error(`the run did not succeed: ${JSON.stringify(message)}`));
          else resolve(received);
        }
      };
      this.#socket.once('error', reject);
      const params = {
        name: 'command_subagent.spawn',
        arguments: { agent, instruction },
        _meta: { ...META, progressToken: 'stream' },
      };
      this.#socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })}\n`);
    });
  }

  close(): void {
    this.#socket.end();
  }
}
