/**
 * A third-party extension written against the MethodProvider seam alone (one method, one
 * capability), served by McpServer on stdio, a unix socket, Streamable HTTP and vsock (where this
 * machine has vsock loopback), in the legacy (2025-11-25) and the 2026-07-28 era.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { silentLogger } from '@agentd/rpc-frame';
import { type Json, type Message, modernMeta, NdjsonClient } from '@agentd/test-support';
import { bindVsock, connectVsock, serveVsock } from '@agentd/transport-vsock';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { McpServer } from './mcp-server.js';
import type { MethodProvider } from './method-provider.js';
import { http, stdio, unix } from './server-transport.js';

const EXTENSION = 'com.example/echo';
const METHOD = 'example/echo';

/** The whole extension: what a third party would publish as its own package. */
function echoExtension(): MethodProvider {
  return {
    name: 'echo',
    methods: [METHOD],
    capabilities: () => ({ extensions: { [EXTENSION]: { maxLength: 64 } } }),
    handle(_method, params, context) {
      return { echoed: params.text ?? null, era: context.era, client: context.clientInfo?.name ?? null };
    },
  };
}

const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

function server(): McpServer {
  const built = new McpServer(
    { name: 'echo-server', version: '1.0.0' },
    { logger: silentLogger, providers: [echoExtension()] },
  );
  built.dispatcher.registerTool({
    name: 'noop',
    description: 'a core tool next to the extension',
    handler: () => 'ok',
  });
  opened.push(built);
  return built;
}

/** One request/response exchange, whatever carries it. */
type Exchange = (method: string, params: Json) => Promise<Message>;

/** Legacy handshake, then the extension's method; modern discover, then the method with `_meta`. */
async function checkBothEras(legacy: Exchange, modern: Exchange): Promise<void> {
  const init = await legacy('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'legacy-client', version: '1' },
  });
  expect((init.result?.capabilities as Json | undefined)?.extensions).toEqual({
    [EXTENSION]: { maxLength: 64 },
  });
  const legacyAnswer = await legacy(METHOD, { text: 'hello' });
  expect(legacyAnswer.result).toMatchObject({ echoed: 'hello', era: 'legacy', client: 'legacy-client' });

  const discover = await modern('server/discover', { _meta: modernMeta() });
  expect((discover.result?.capabilities as Json | undefined)?.extensions).toEqual({
    [EXTENSION]: { maxLength: 64 },
  });
  const modernAnswer = await modern(METHOD, { text: 'world', _meta: modernMeta() });
  expect(modernAnswer.result).toMatchObject({ echoed: 'world', era: 'modern', client: 'test-client' });
}

/** Legacy over one NDJSON connection, modern over another (eras are per connection on streams). */
async function checkStream(connect: () => Promise<NdjsonClient>): Promise<void> {
  const legacyClient = await connect();
  const modernClient = await connect();
  await checkBothEras(
    async (method, params) => {
      const answer = await legacyClient.request(method, params);
      if (method === 'initialize') legacyClient.notify('notifications/initialized');
      return answer;
    },
    (method, params) => modernClient.request(method, params),
  );
}

async function postJson(url: string, body: Json, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** A POST's JSON-RPC answer, sent as JSON or as the single message of an SSE stream. */
async function answerOf(response: Response): Promise<Message> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return JSON.parse(text) as Message;
  const data = text.split('\n').find((line) => line.startsWith('data:') && line.length > 'data:'.length);
  if (data === undefined) throw new Error(`no message in the SSE answer: ${text}`);
  return JSON.parse(data.slice('data:'.length)) as Message;
}

describe('a third-party MethodProvider', () => {
  it('is refused when it claims a method the core or another provider serves', () => {
    const dispatcher = new Dispatcher({ logger: silentLogger, providers: [echoExtension()] });
    opened.push(dispatcher);
    expect(() => dispatcher.registerProvider({ ...echoExtension(), name: 'again' })).toThrow(
      expect.objectContaining({
        code: 'duplicate',
        message: `provider again: ${METHOD} is already served by echo`,
      }),
    );
    expect(() => dispatcher.registerProvider({ ...echoExtension(), methods: ['tools/call'] })).toThrow(
      expect.objectContaining({ code: 'duplicate' }),
    );
  });

  it('is withdrawn with what it declared: its method is unknown again', async () => {
    const dispatcher = new Dispatcher({ logger: silentLogger });
    opened.push(dispatcher);
    const withdraw = dispatcher.registerProvider(echoExtension());
    expect(dispatcher.capabilities().extensions).toEqual({ [EXTENSION]: { maxLength: 64 } });
    expect(withdraw()).toBe(true);
    expect(withdraw()).toBe(false);
    expect(dispatcher.capabilities().extensions).toBeUndefined();
  });

  it('is served on stdio in both eras', async () => {
    const mcp = server();
    const connect = async () => {
      const toServer = new PassThrough();
      const fromServer = new PassThrough();
      await mcp.connect(stdio({ stdin: toServer, stdout: fromServer }));
      return new NdjsonClient(fromServer, toServer);
    };
    await checkStream(connect);
  });

  it('is served on a unix socket in both eras', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'provider-'));
    opened.push({ close: () => rmSync(dir, { recursive: true, force: true }) });
    const path = join(dir, 'mcp.sock');
    const mcp = server();
    await mcp.connect(unix(path));
    await checkStream(async () => {
      const client = await NdjsonClient.connect(path);
      opened.push({ close: () => client.input.destroy() });
      return client;
    });
  });

  it('is served on Streamable HTTP in both eras', async () => {
    const mcp = server();
    const served = await mcp.connect(http());
    const url = served.url as string;
    let session: string | undefined;
    const legacy: Exchange = async (method, params) => {
      const response = await postJson(
        url,
        { jsonrpc: '2.0', id: method, method, params },
        session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      );
      session ??= response.headers.get('mcp-session-id') ?? undefined;
      const answer = await answerOf(response);
      if (method === 'initialize') {
        const ack = await postJson(
          url,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { 'mcp-session-id': session as string, 'mcp-protocol-version': '2025-11-25' },
        );
        expect(ack.status).toBe(202);
      }
      return answer;
    };
    const modern: Exchange = async (method, params) =>
      answerOf(
        await postJson(
          url,
          { jsonrpc: '2.0', id: 1, method, params },
          {
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
          },
        ),
      );
    await checkBothEras(legacy, modern);
    expect(session).toBeDefined();
  });

  // Needs vsock loopback (CID 1) to reach itself; elsewhere the unix test covers the same stream path.
  const hasLoopback = existsSync('/dev/vsock') && existsSync('/sys/module/vsock_loopback');
  it.skipIf(!hasLoopback)('is served on vsock in both eras', async () => {
    const mcp = server();
    const listener = bindVsock({ port: 0xffffffff });
    const vsock = serveVsock(listener, mcp.core);
    opened.push({ close: () => vsock.close(0) });
    await checkStream(async () => {
      const socket = connectVsock(1, listener.address().port as number);
      opened.push({ close: () => socket.destroy() });
      await once(socket, 'connect');
      return new NdjsonClient(socket);
    });
  });
});
