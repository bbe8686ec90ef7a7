/** The ways the driver talks to a server: NDJSON (legacy handshake or 2026-07-28), HTTP session, HTTP legacy stateless, HTTP 2026-07-28. */
import type { Readable, Writable } from 'node:stream';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { HttpChannel } from './http-channel.js';
import { NdjsonChannel, type RpcResponse } from './ndjson-channel.js';

export type Flavour = 'ndjson' | 'ndjson-modern' | 'http-session' | 'http-legacy-stateless' | 'http-modern';

export interface Session {
  request(method: string, params: Record<string, unknown>): Promise<RpcResponse>;
  close(): void;
}

export type Endpoint =
  | { kind: 'streams'; input: Readable; output: Writable }
  | { kind: 'http'; port: number };

const LEGACY_VERSION = '2025-06-18';
const CLIENT_INFO = { name: 'agentd-bench', version: '0.0.0' };

const INITIALIZE_PARAMS = { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };

/** What every 2026-07-28 request carries in `_meta` (no handshake, no session). */
const MODERN_META = {
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: CLIENT_INFO,
};

function expectResult(response: RpcResponse | undefined, what: string): Record<string, unknown> {
  if (response?.result === undefined)
    throw new Error(`${what} failed: ${JSON.stringify(response?.error ?? response)}`);
  return response.result;
}

async function ndjsonSession(input: Readable, output: Writable): Promise<Session> {
  const channel = new NdjsonChannel(input, output);
  expectResult(await channel.request('initialize', INITIALIZE_PARAMS), 'initialize');
  channel.notify('notifications/initialized');
  return { request: (method, params) => channel.request(method, params), close: () => output.end() };
}

/** 2026-07-28 over NDJSON: every request stands alone with its `_meta`, as on a modern socket. */
function ndjsonModernSession(input: Readable, output: Writable): Session {
  const channel = new NdjsonChannel(input, output);
  return {
    // `_meta` first, the params spread after (params carry none): a key added to a spread copy
    // would cost V8 a hidden class per request, in the driver as in any client.
    request: (method, params) => channel.request(method, { _meta: MODERN_META, ...params }),
    close: () => output.end(),
  };
}

class HttpSession implements Session {
  readonly #channel: HttpChannel;
  readonly #headers: Record<string, string>;
  readonly #modern: boolean;
  #nextId = 1;

  constructor(channel: HttpChannel, headers: Record<string, string>, modern: boolean) {
    this.#channel = channel;
    this.#headers = headers;
    this.#modern = modern;
  }

  async request(method: string, params: Record<string, unknown>): Promise<RpcResponse> {
    const id = this.#nextId++;
    let headers = this.#headers;
    let sent = params;
    if (this.#modern) {
      sent = { _meta: MODERN_META, ...params };
      headers =
        typeof params.name === 'string'
          ? { 'mcp-method': method, 'mcp-name': params.name, ...headers }
          : { 'mcp-method': method, ...headers };
    }
    const answer = await this.#channel.post({ jsonrpc: '2.0', id, method, params: sent }, headers);
    if (answer.response === undefined)
      throw new Error(`${method}: HTTP ${answer.status} without a JSON-RPC answer`);
    return answer.response;
  }

  close(): void {
    this.#channel.close();
  }
}

async function httpSession(port: number, flavour: Flavour): Promise<Session> {
  const channel = new HttpChannel(port);
  if (flavour === 'http-modern') {
    return new HttpSession(channel, { 'mcp-protocol-version': MODERN_VERSION }, true);
  }
  const init = await channel.post(
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE_PARAMS },
    {},
  );
  expectResult(init.response, `initialize (HTTP ${init.status})`);
  const headers: Record<string, string> = { 'mcp-protocol-version': LEGACY_VERSION };
  if (flavour === 'http-session') {
    const sessionId = init.headers['mcp-session-id'];
    if (typeof sessionId !== 'string') throw new Error('initialize answered without Mcp-Session-Id');
    headers['mcp-session-id'] = sessionId;
  }
  const initialized = await channel.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  if (initialized.status !== 202) throw new Error(`notifications/initialized got HTTP ${initialized.status}`);
  return new HttpSession(channel, headers, false);
}

export function openSession(endpoint: Endpoint, flavour: Flavour): Promise<Session> {
  if (endpoint.kind === 'streams') {
    if (flavour === 'ndjson-modern')
      return Promise.resolve(ndjsonModernSession(endpoint.input, endpoint.output));
    return ndjsonSession(endpoint.input, endpoint.output);
  }
  return httpSession(endpoint.port, flavour);
}
