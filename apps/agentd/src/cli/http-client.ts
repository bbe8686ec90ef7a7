/** The operator CLI's modern-era (2026-07-28) MCP client over Streamable HTTP(S): one POST per request. */
import {
  DEFAULT_MAX_FRAME_BYTES,
  frameTooLarge,
  isJsonObject,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcResponse,
  LocalError,
  WireError,
} from '@agentd/rpc-frame';
import type { AgentdErrorCode } from '../local-errors.js';
import {
  AbortedError,
  CLIENT_PROTOCOL_VERSION,
  type McpClient,
  modernMeta,
  type RequestOptions,
} from './mcp-client.js';

/** The value of the Mcp-Name header: what the modern HTTP transport routes and checks on. */
function mcpName(method: string, params: JsonObject): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get')
    return typeof params.name === 'string' ? params.name : undefined;
  if (method === 'resources/read') return typeof params.uri === 'string' ? params.uri : undefined;
  return undefined;
}

/**
 * Yields the `data` of each server-sent event of a response body. An event (or an unfinished
 * line) longer than `limit` bytes ends the stream with `frame_too_large`: the answer is refused,
 * never buffered without bound.
 */
async function* sseData(body: ReadableStream<Uint8Array>, limit: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let dataBytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl = buffer.indexOf('\n');
    while (nl !== -1) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
        dataBytes = 0;
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
        dataBytes += line.length;
      }
    }
    // Characters, not bytes: a UTF-16 length is at most the UTF-8 byte length, so never early.
    if (dataBytes + buffer.length > limit) throw frameTooLarge(limit);
  }
  if (data.length > 0) yield data.join('\n');
}

/** The body of a JSON answer, refused past `limit` bytes. */
async function boundedJson(body: ReadableStream<Uint8Array> | null, limit: number): Promise<unknown> {
  if (body === null) return null;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > limit) {
      await body.cancel().catch(() => {});
      throw frameTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

export class HttpClient implements McpClient {
  #nextId = 1;
  readonly #controllers = new Set<AbortController>();

  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly version = '0',
    /** The largest answer accepted; a larger one rejects the request with `frame_too_large`. */
    private readonly maxAnswerBytes = DEFAULT_MAX_FRAME_BYTES,
  ) {}

  async request(method: string, params: JsonObject = {}, options: RequestOptions = {}): Promise<JsonObject> {
    const id = this.#nextId++;
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: { ...params, _meta: modernMeta(params, this.version) },
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': CLIENT_PROTOCOL_VERSION,
      'mcp-method': method,
    };
    const name = mcpName(method, params);
    if (name !== undefined) headers['mcp-name'] = name;
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    // HTTP cancellation is closing the response: the server treats it as a cancel of the request.
    const controller = new AbortController();
    this.#controllers.add(controller);
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let response: Response;
      try {
        response = await fetch(this.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: controller.signal,
        });
      } catch (error) {
        if (options.signal?.aborted) throw new AbortedError(`${method} cancelled`);
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        throw new LocalError<AgentdErrorCode>(
          'daemon_unreachable',
          `cannot reach ${this.url}: ${cause ?? (error as Error).message} (is agentd running?)`,
          { cause: error },
        );
      }
      const type = response.headers.get('content-type') ?? '';
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel();
        throw new LocalError<AgentdErrorCode>(
          'daemon_refused',
          `${this.url} refused the request (HTTP ${response.status}): give a bearer token with --token-file or AGENTD_TOKEN`,
        );
      }
      if (type.startsWith('text/event-stream') && response.body !== null) {
        for await (const data of sseData(response.body, this.maxAnswerBytes)) {
          const message = JSON.parse(data) as unknown;
          if (!isJsonObject(message)) continue;
          if (message.id === id && ('result' in message || 'error' in message))
            return this.#settle(message as unknown as JsonRpcResponse);
          if (typeof message.method === 'string' && message.id === undefined)
            options.onNotification?.(message as unknown as JsonRpcNotification);
        }
        throw new LocalError<AgentdErrorCode>(
          'bad_answer',
          `${method}: the response stream ended without an answer`,
        );
      }
      if (type.startsWith('application/json')) {
        return this.#settle((await boundedJson(response.body, this.maxAnswerBytes)) as JsonRpcResponse);
      }
      await response.body?.cancel();
      throw new LocalError<AgentdErrorCode>(
        'bad_answer',
        `${this.url} answered HTTP ${response.status} (${type || 'no content type'})`,
      );
    } catch (error) {
      if (options.signal?.aborted && !(error instanceof AbortedError))
        throw new AbortedError(`${method} cancelled`);
      throw error;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      this.#controllers.delete(controller);
    }
  }

  #settle(response: JsonRpcResponse): JsonObject {
    if ('error' in response) throw WireError.from(response.error);
    return response.result;
  }

  close(): void {
    for (const controller of this.#controllers) controller.abort();
  }
}
