/**
 * One table of bad requests, sent over stdio, unix and HTTP: every transport must answer each with
 * the same JSON-RPC error, and that error must be the row's expected one (the unified texts of
 * `@agentd/lifecycle`). vsock cannot connect to itself on one machine, so its column lives in
 * transport-vsock's own serve-vsock-errors test (over that package's AF_UNIX stand-in): there
 * vsock answers each bad request exactly as stdio does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { Dispatcher } from '@agentd/dispatch';
import { MetaKey, MODERN_VERSION, SUPPORTED_VERSIONS } from '@agentd/lifecycle';
import { createServerCore, openStdio, type ServerCore, silentLogger } from '@agentd/server';
import { serveHttp } from '@agentd/transport-http/node';
import { bindUnix, dialUnix, serveUnix } from '@agentd/transport-unix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
type CoreKind = 'dual' | 'modern-only';

interface Row {
  readonly name: string;
  readonly core: CoreKind;
  /** The line / POST body, as bytes: most rows are JSON, one is not. */
  readonly body: string;
  /** Initialize a legacy session first (NDJSON: on the connection; HTTP: Mcp-Session-Id). */
  readonly session?: boolean;
  /** The HTTP status the one status table gives this answer. */
  readonly status: number;
  readonly expected: { id: string | number | null; error: { code: number; message: string; data?: unknown } };
}

const META = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {} };
const LEGACY = '2025-06-18';
const rpc = (id: number, method: string, params?: Json) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );
const modern = (id: number, method: string, params: Json = {}, meta: Json = META) =>
  rpc(id, method, { ...params, _meta: meta });

const ROWS: readonly Row[] = [
  {
    name: 'malformed JSON',
    core: 'dual',
    body: '{"jsonrpc":"2.0","id":1,"method":',
    status: 400,
    expected: { id: null, error: { code: -32700, message: 'Parse error' } },
  },
  {
    name: 'invalid JSON-RPC envelope',
    core: 'dual',
    body: JSON.stringify({ jsonrpc: '1.0', id: 2, method: 'tools/list' }),
    status: 400,
    expected: { id: 2, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } },
  },
  {
    name: 'modern-only: a bare request without _meta',
    core: 'modern-only',
    body: rpc(3, 'tools/list'),
    status: 400,
    expected: {
      id: 3,
      error: { code: -32602, message: 'Invalid params: params._meta is required (protocol 2026-07-28)' },
    },
  },
  {
    name: 'modern: missing clientCapabilities',
    core: 'dual',
    body: modern(4, 'tools/list', {}, { [MetaKey.protocolVersion]: MODERN_VERSION }),
    status: 400,
    expected: {
      id: 4,
      error: {
        code: -32602,
        message:
          'Invalid params: params._meta["io.modelcontextprotocol/clientCapabilities"] is required (an object; use {} for none)',
      },
    },
  },
  {
    name: 'modern: missing protocolVersion',
    core: 'dual',
    body: modern(5, 'tools/list', {}, { [MetaKey.clientCapabilities]: {} }),
    status: 400,
    expected: {
      id: 5,
      error: {
        code: -32602,
        message:
          'Invalid params: params._meta["io.modelcontextprotocol/protocolVersion"] is required (a string)',
      },
    },
  },
  {
    name: 'modern: unsupported protocol version',
    core: 'dual',
    body: modern(6, 'tools/list', {}, { ...META, [MetaKey.protocolVersion]: '2099-01-01' }),
    status: 400,
    expected: {
      id: 6,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: [...SUPPORTED_VERSIONS], requested: '2099-01-01' },
      },
    },
  },
  {
    name: 'modern: a log level that does not exist',
    core: 'dual',
    body: modern(7, 'tools/list', {}, { ...META, [MetaKey.logLevel]: 'loud' }),
    status: 400,
    expected: {
      id: 7,
      error: {
        code: -32602,
        message:
          'Invalid params: params._meta["io.modelcontextprotocol/logLevel"] must be one of debug, info, notice, warning, error, critical, alert, emergency',
      },
    },
  },
  {
    name: 'modern: a progress token that is not an id',
    core: 'dual',
    body: modern(8, 'tools/list', {}, { ...META, progressToken: 1.5 }),
    status: 400,
    expected: {
      id: 8,
      error: {
        code: -32602,
        message: 'Invalid params: params._meta.progressToken must be a string or an integer',
      },
    },
  },
  {
    name: 'modern: unknown method',
    core: 'dual',
    body: modern(9, 'nothing/here'),
    status: 404,
    expected: { id: 9, error: { code: -32601, message: 'Method not found: nothing/here' } },
  },
  {
    name: 'wrong era: ping sent modern-style',
    core: 'dual',
    body: modern(10, 'ping'),
    status: 404,
    expected: {
      id: 10,
      error: { code: -32601, message: 'Method not found: ping (removed in the 2026-07-28 revision)' },
    },
  },
  {
    name: 'wrong era: initialize sent modern-style',
    core: 'dual',
    body: modern(17, 'initialize', { protocolVersion: MODERN_VERSION, capabilities: {} }),
    status: 404,
    expected: {
      id: 17,
      error: { code: -32601, message: 'Method not found: initialize (removed in the 2026-07-28 revision)' },
    },
  },
  {
    name: 'modern: clientInfo that is not an object',
    core: 'dual',
    body: modern(18, 'tools/list', {}, { ...META, [MetaKey.clientInfo]: 'me' }),
    status: 400,
    expected: {
      id: 18,
      error: {
        code: -32602,
        message: 'Invalid params: params._meta["io.modelcontextprotocol/clientInfo"] must be an object',
      },
    },
  },
  {
    name: 'wrong era: initialize on a modern-only server',
    core: 'modern-only',
    body: rpc(11, 'initialize', {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
    status: 404,
    expected: {
      id: 11,
      error: {
        code: -32601,
        message:
          'Method not found: initialize; this server speaks only 2026-07-28 (stateless: use server/discover and per-request _meta)',
        data: { supported: ['2026-07-28'] },
      },
    },
  },
  {
    name: 'legacy: initialize without a protocol version',
    core: 'dual',
    body: rpc(12, 'initialize', { capabilities: {} }),
    status: 400,
    expected: {
      id: 12,
      error: {
        code: -32602,
        message: 'Invalid params: initialize requires params.protocolVersion (a string)',
      },
    },
  },
  {
    name: 'modern: tools/call naming no tool',
    core: 'dual',
    body: modern(13, 'tools/call', { arguments: {} }),
    status: 200,
    expected: { id: 13, error: { code: -32602, message: 'Invalid params: name must be a non-empty string' } },
  },
  {
    name: 'legacy: an unknown tool',
    core: 'dual',
    session: true,
    body: rpc(14, 'tools/call', { name: 'nope', arguments: {} }),
    status: 200,
    expected: { id: 14, error: { code: -32602, message: 'Unknown tool: nope' } },
  },
  {
    name: 'modern: an unknown tool',
    core: 'dual',
    body: modern(16, 'tools/call', { name: 'nope', arguments: {} }),
    status: 200,
    expected: { id: 16, error: { code: -32602, message: 'Unknown tool: nope' } },
  },
  {
    name: 'legacy: unknown method in a session',
    core: 'dual',
    session: true,
    body: rpc(15, 'nothing/here'),
    status: 200,
    expected: { id: 15, error: { code: -32601, message: 'Method not found: nothing/here' } },
  },
];

function buildCore(kind: CoreKind): ServerCore {
  const dispatcher = new Dispatcher();
  dispatcher.registerTool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => String(text),
  });
  return createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'cross-transport', version: '1.0.0' },
    logger: silentLogger,
    ...(kind === 'modern-only' ? { lifecycle: { versions: [MODERN_VERSION] } } : {}),
  });
}

/** NDJSON lines from a readable, awaited one at a time. */
class Lines {
  private buffer = '';
  private readonly queue: Json[] = [];
  private waiter: ((message: Json) => void) | undefined;

  constructor(readable: Readable) {
    readable.setEncoding('utf8');
    readable.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        const message = JSON.parse(line) as Json;
        const waiter = this.waiter;
        this.waiter = undefined;
        if (waiter !== undefined) waiter(message);
        else this.queue.push(message);
      }
    });
  }

  next(): Promise<Json> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000);
      this.waiter = (message) => {
        clearTimeout(timer);
        resolve(message);
      };
    });
  }
}

const INITIALIZE = rpc(0, 'initialize', {
  protocolVersion: LEGACY,
  capabilities: {},
  clientInfo: { name: 'cross-transport', version: '1' },
});

/** Sends the row over one NDJSON connection (a fresh one per row) and returns the answer. */
async function overNdjson(write: (line: string) => void, lines: Lines, row: Row): Promise<Json> {
  if (row.session === true) {
    write(`${INITIALIZE}\n`);
    expect(await lines.next()).toHaveProperty('result.protocolVersion', LEGACY);
    write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }
  write(`${row.body}\n`);
  return lines.next();
}

/** The headers a conformant client sends: modern ones mirror the body. */
function headersFor(body: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let message: Json;
  try {
    message = JSON.parse(body) as Json;
  } catch {
    return headers;
  }
  const params = (message.params ?? {}) as Json;
  const version = ((params._meta ?? {}) as Json)[MetaKey.protocolVersion];
  if (typeof version !== 'string') return headers;
  headers['mcp-protocol-version'] = version;
  if (typeof message.method === 'string') headers['mcp-method'] = message.method;
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return headers;
}

async function answerOf(response: Response): Promise<Json> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return JSON.parse(text) as Json;
  const data = text.split('\n').filter((line) => line.startsWith('data: '));
  return JSON.parse((data.at(-1) ?? '').slice(6)) as Json;
}

async function overHttp(url: string, row: Row): Promise<{ status: number; answer: Json }> {
  const headers = headersFor(row.body);
  if (row.session === true) {
    const init = await fetch(url, { method: 'POST', headers, body: INITIALIZE });
    expect(init.status).toBe(200);
    await init.text();
    const session = init.headers.get('mcp-session-id') ?? '';
    Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY });
    const initialized = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
  }
  const response = await fetch(url, { method: 'POST', headers, body: row.body });
  return { status: response.status, answer: await answerOf(response) };
}

interface Served {
  readonly core: ServerCore;
  readonly unixPath: string;
  readonly httpUrl: string;
  close(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'cross-transport-'));
const served = new Map<CoreKind, Served>();

async function serveAll(kind: CoreKind): Promise<Served> {
  const core = buildCore(kind);
  const unixPath = join(dir, `${kind}.unix`);
  const unix = serveUnix(await bindUnix(unixPath), core);
  const http = await serveHttp(core);
  return {
    core,
    unixPath,
    httpUrl: http.url.replace('127.0.0.1', 'localhost'),
    async close() {
      await http.close(1_000);
      await unix.close(1_000);
      await core.close();
    },
  };
}

beforeAll(async () => {
  for (const kind of ['dual', 'modern-only'] as const) served.set(kind, await serveAll(kind));
});

afterAll(async () => {
  for (const one of served.values()) await one.close();
  rmSync(dir, { recursive: true, force: true });
});

async function stdioAnswer(core: ServerCore, row: Row): Promise<Json> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const handle = openStdio(core, { stdin, stdout, redirectConsole: false });
  try {
    return await overNdjson((line) => stdin.write(line), new Lines(stdout), row);
  } finally {
    stdin.end();
    await handle.closed;
  }
}

async function unixAnswer(path: string, row: Row): Promise<Json> {
  const socket = await dialUnix(path);
  try {
    return await overNdjson((line) => socket.write(line), new Lines(socket), row);
  } finally {
    socket.destroy();
  }
}

describe('the same bad request gets the same JSON-RPC error on every transport', () => {
  it.each(ROWS)('$name', async (row) => {
    const target = served.get(row.core) as Served;
    const [stdio, unix, http] = await Promise.all([
      stdioAnswer(target.core, row),
      unixAnswer(target.unixPath, row),
      overHttp(target.httpUrl, row),
    ]);
    const expected = { jsonrpc: '2.0', ...row.expected };
    // Each against the row's expectation, then each against the others (the same object, byte for byte).
    expect({ stdio, unix, http: http.answer }).toEqual({
      stdio: expected,
      unix: expected,
      http: expected,
    });
    const encoded = new Set([stdio, unix, http.answer].map((answer) => JSON.stringify(answer)));
    expect(encoded.size).toBe(1);
    expect(http.status).toBe(row.status);
  });
});
