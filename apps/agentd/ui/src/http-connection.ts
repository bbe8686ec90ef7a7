/**
 * The dashboard's way to agentd: 2026-07-28 JSON-RPC requests POSTed to the listener's own MCP
 * endpoint (same origin, so the listener's Host/Origin rules and auth apply unchanged), and
 * `subscriptions/listen` over SSE for pushed updates.
 */
import { type Connection, type Json, PageError } from './connection.js';
import { sseMessages } from './sse-reader.js';

const VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'agentd-dashboard', version: '1.0.0' };

function meta(): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  };
}

/** A header value as the transport rules want it: plain visible ASCII, else the base64 form. */
function headerValue(value: string): string {
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?base64?')) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

export function httpConnection(endpoint: string, token: string | undefined): Connection {
  let nextId = 1;

  const post = async (method: string, params: Json, id: number, signal?: AbortSignal): Promise<Response> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
    };
    const name = method === 'tools/call' ? params.name : method === 'resources/read' ? params.uri : undefined;
    if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const response = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params: { ...params, _meta: { ...(params._meta as Json | undefined), ...meta() } },
      }),
      cache: 'no-store',
      credentials: 'omit',
      ...(signal === undefined ? {} : { signal }),
    });
    if (response.status === 401)
      throw new PageError('unauthorized', 'this listener needs a valid bearer token');
    if (response.status === 403 && !isJson(response))
      throw new PageError('forbidden', 'this listener refused the request (Host or Origin not allowed)');
    return response;
  };

  const answerOf = async (
    response: Response,
    id: number,
    onNotification?: (notification: Json) => void,
  ): Promise<Json> => {
    if (isJson(response)) return (await response.json()) as Json;
    if (
      response.body !== null &&
      (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ) {
      for await (const message of sseMessages(response.body)) {
        if (message.id === id && message.method === undefined) return message;
        if (typeof message.method === 'string') onNotification?.(message);
      }
    }
    throw new PageError('http', `unexpected HTTP ${response.status} from ${endpoint}`);
  };

  const call = async (
    method: string,
    params: Json,
    onNotification?: (notification: Json) => void,
    signal?: AbortSignal,
  ): Promise<Json> => {
    const id = nextId++;
    const answer = await answerOf(await post(method, params, id, signal), id, onNotification);
    const error = answer.error as { message?: string } | undefined;
    if (error !== undefined) throw new PageError('rpc', error.message ?? 'request failed');
    return (answer.result ?? {}) as Json;
  };

  return {
    request: (method, params) => call(method, params),
    stream: call,

    watch(uris, onUpdate) {
      const stop = new AbortController();
      const loop = async () => {
        let delay = 500;
        while (!stop.signal.aborted) {
          const id = nextId++;
          try {
            const response = await post(
              'subscriptions/listen',
              { notifications: { resourceSubscriptions: [...uris] } },
              id,
              stop.signal,
            );
            if (response.body === null || isJson(response)) throw new PageError('http', 'listen refused');
            for await (const message of sseMessages(response.body)) {
              if (message.method === 'notifications/subscriptions/acknowledged') delay = 500;
              const uri = (message.params as Json | undefined)?.uri;
              if (message.method === 'notifications/resources/updated' && typeof uri === 'string')
                onUpdate(uri);
            }
          } catch {
            // A dropped stream loses nothing the next read cannot recover: the page re-reads on reconnect.
          }
          if (stop.signal.aborted) return;
          for (const uri of uris) onUpdate(uri);
          await new Promise((resolve) => setTimeout(resolve, delay));
          delay = Math.min(delay * 2, 10_000);
        }
      };
      void loop();
      return () => stop.abort();
    },
  };
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith('application/json');
}
