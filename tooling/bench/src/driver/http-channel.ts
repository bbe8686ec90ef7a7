/** A raw Streamable HTTP client: node:http keep-alive POSTs, answers parsed from JSON or SSE bodies. */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { RpcResponse } from './ndjson-channel.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The JSON-RPC response in the body (JSON, or the SSE event carrying it), if any. */
  readonly response: RpcResponse | undefined;
}

/** The JSON-RPC responses found in an SSE body (other events, e.g. notifications, are skipped). */
function sseResponses(body: string): RpcResponse[] {
  const found: RpcResponse[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data.length === 0) continue;
    const message = JSON.parse(data) as RpcResponse & { method?: string };
    if (message.method === undefined) found.push(message);
  }
  return found;
}

export class HttpChannel {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly #port: number;
  readonly #path: string;

  constructor(port: number, path = '/mcp') {
    this.#port = port;
    this.#path = path;
  }

  /**
   * A keep-alive socket the server closed as idle while this request went out fails with ECONNRESET
   * ("socket hang up"): that request never reached the server, so it is sent once more (Node's documented pattern).
   */
  async post(message: Record<string, unknown>, headers: Record<string, string>): Promise<HttpAnswer> {
    try {
      return await this.#post(message, headers);
    } catch (error) {
      if ((error as { reusedSocketReset?: boolean }).reusedSocketReset !== true) throw error;
      return this.#post(message, headers);
    }
  }

  #post(message: Record<string, unknown>, headers: Record<string, string>): Promise<HttpAnswer> {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.#agent,
          host: '127.0.0.1',
          port: this.#port,
          path: this.#path,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(body),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const type = res.headers['content-type'] ?? '';
            let response: RpcResponse | undefined;
            try {
              if (type.startsWith('text/event-stream')) response = sseResponses(text)[0];
              else if (text.length > 0) response = JSON.parse(text) as RpcResponse;
            } catch (error) {
              reject(
                new Error(`unparseable HTTP ${res.statusCode} body: ${text.slice(0, 200)}`, { cause: error }),
              );
              return;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, response });
          });
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (req.reusedSocket && error.code === 'ECONNRESET')
          Object.assign(error, { reusedSocketReset: true });
        reject(error);
      });
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
