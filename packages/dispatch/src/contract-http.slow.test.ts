/**
 * ContractServer through the server core and transport-http over real HTTP on loopback: the
 * contract's answers (every one 200 JSON), and the HTTP-level refusals.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { type Logger, silentLogger } from '@agentd/rpc-frame';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractServer } from './contract-server.js';
import { InputRequired } from './input-required.js';
import { type HttpTransportOptions, http, type ServedTransport } from './server-transport.js';

const served: ServedTransport[] = [];

async function serve(options: HttpTransportOptions = {}, logger: Logger = silentLogger): Promise<number> {
  const mcp = new ContractServer({ logger });
  mcp.registerTool(
    'greet',
    'Greets',
    { properties: { name: { type: 'string' } }, required: ['name'] },
    (args) => `Hello, ${String(args.name)}!`,
  );
  mcp.registerTool('confirm', 'Asks first', {}, (_args, inputResponses) => {
    if (inputResponses?.confirm !== 'yes') throw new InputRequired([{ id: 'confirm', prompt: 'yes?' }]);
    return 'done';
  });
  mcp.registerTool('explode', 'Fails below the tool', {}, () => 'unreachable');
  mcp.use((ctx, next) => {
    if (ctx.params.name === 'explode') throw new Error('middleware blew up');
    return next();
  });
  const transport = await mcp.connect(http(options));
  served.push(transport);
  return Number(new URL(transport.url ?? '').port);
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http rather than fetch, so Host and other forbidden headers can be set. */
function send(
  port: number,
  body: string,
  { method = 'POST', headers = {} as Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: '/mcp',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const rpc = (value: unknown) => JSON.stringify(value);

let port: number;
beforeAll(async () => {
  port = await serve();
});
afterAll(async () => {
  await Promise.all(served.map((transport) => transport.close(0)));
});

describe('ContractServer over transport-http', () => {
  it('answers a tools/call with 200 application/json carrying the JSON-RPC response', async () => {
    const reply = await send(
      port,
      rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'Ada' } },
      }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(reply.body)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'Hello, Ada!' }], resultType: 'complete' },
    });
  });

  it('keeps the contract on HTTP: initialize, version, invalid requests and parse errors are 200 JSON-RPC errors', async () => {
    const cases: [string, number, unknown][] = [
      [rpc({ jsonrpc: '2.0', id: 'i', method: 'initialize' }), -32601, 'i'],
      [
        rpc({ jsonrpc: '2.0', id: 'v', method: 'tools/list', _meta: { protocolVersion: '2025-06-18' } }),
        -32600,
        'v',
      ],
      [rpc({ jsonrpc: '2.0', id: 7 }), -32600, 7],
      [rpc([1, 2]), -32600, null],
      ['{"jsonrpc":', -32700, null],
      [rpc({ jsonrpc: '2.0', id: 'm', method: 'prompts/list' }), -32601, 'm'],
    ];
    for (const [body, code, id] of cases) {
      const reply = await send(port, body);
      expect(reply.status, body).toBe(200);
      expect(JSON.parse(reply.body), body).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    }
    const missing = await send(
      port,
      rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope' } }),
    );
    expect(JSON.parse(missing.body).result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Tool not found' }],
    });
    const asked = await send(
      port,
      rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'confirm' } }),
    );
    expect(JSON.parse(asked.body).result).toMatchObject({
      resultType: 'input_required',
      requests: [{ id: 'confirm', prompt: 'yes?' }],
    });
    const retried = await send(
      port,
      rpc({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'confirm', inputResponses: { confirm: 'yes' } },
      }),
    );
    expect(JSON.parse(retried.body).result.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('refuses what is not a JSON POST: 405 with Allow, 415', async () => {
    const get = await send(port, '', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const plain = await send(port, rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    const withCharset = await send(port, rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(withCharset.status).toBe(200);
  });

  it('refuses a body over maxBodyBytes with 413, and keeps serving', async () => {
    const small = await serve({ maxBodyBytes: 100 });
    const big = await send(
      small,
      rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { x: 'y'.repeat(500) } }),
    );
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.message).toMatch(/Payload Too Large/);
    const next = await send(small, rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(next.status).toBe(200);
  });

  it('guards against DNS rebinding: foreign Host or Origin is 403, loopback and listed ones pass', async () => {
    const body = rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await send(port, body, { headers: { host: 'evil.example' } })).status).toBe(403);
    expect((await send(port, body, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await send(port, body, { headers: { origin: 'null' } })).status).toBe(403);
    expect((await send(port, body, { headers: { host: `localhost:${port}` } })).status).toBe(200);
    expect((await send(port, body, { headers: { origin: 'http://127.0.0.1:5173' } })).status).toBe(200);
    expect((await send(port, body, { headers: { host: '[::1]:80' } })).status).toBe(200);
    const listed = await serve({
      allowedHosts: ['api.example.com'],
      allowedOrigins: ['https://app.example.com/'],
    });
    expect((await send(listed, body, { headers: { host: 'api.example.com:443' } })).status).toBe(200);
    expect((await send(listed, body, { headers: { origin: 'https://app.example.com' } })).status).toBe(200);
    expect((await send(listed, body, { headers: { host: 'other.example.com' } })).status).toBe(403);
  });

  it('answers -32603 without the cause when the dispatcher fails, logs it, and keeps serving', async () => {
    const errors: [string, Record<string, unknown> | undefined][] = [];
    const logger = {
      ...silentLogger,
      error: (message: string, fields?: Record<string, unknown>) => errors.push([message, fields]),
    };
    const at = await serve({}, logger);
    const call = (id: unknown, name: string) =>
      send(at, rpc({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { name: 'x' } } }));
    const failed = await call(7, 'explode');
    expect(failed.status).toBe(200);
    expect(JSON.parse(failed.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(JSON.parse((await call(8, 'greet')).body).result.content).toEqual([
      { type: 'text', text: 'Hello, x!' },
    ]);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.[1]?.error)).toContain('middleware blew up');
  });

  it('answers an id-less request with id null, and the same request with its id', async () => {
    const idless = await send(port, rpc({ jsonrpc: '2.0', method: 'tools/list' }));
    expect(idless.status).toBe(200);
    expect(JSON.parse(idless.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      result: { tools: expect.any(Array) },
    });
    const nullId = await send(port, rpc({ jsonrpc: '2.0', id: null, method: 'tools/list' }));
    expect(JSON.parse(nullId.body)).toMatchObject({ id: null, result: { tools: expect.any(Array) } });
  });

  it('close() stops every transport the server was connected to', async () => {
    const mcp = new ContractServer({ logger: silentLogger });
    const first = await mcp.connect(http());
    const second = await mcp.connect(http());
    const body = rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const ports = [first, second].map((transport) => Number(new URL(transport.url ?? '').port));
    for (const at of ports) expect((await send(at, body)).status).toBe(200);
    await mcp.close();
    await first.closed;
    await second.closed;
    // A new connection, not a pooled one: nothing listens on either port any more.
    const dial = (at: number) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(at, '127.0.0.1', () => {
          socket.destroy();
          resolve();
        });
        socket.once('error', reject);
      });
    for (const at of ports) await expect(dial(at)).rejects.toThrow(/ECONNREFUSED/);
  });
});
