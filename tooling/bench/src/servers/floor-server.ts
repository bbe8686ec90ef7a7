/** The floors: bare NDJSON and bare node:http JSON-RPC responders (no validation, tools/list serialised once). */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { CATALOGUE, inputSchemaOf } from '../catalogue.js';
import { CatalogueStore } from '../catalogue-store.js';
import type { ServerLaunch } from './launch.js';

interface Message {
  id?: string | number;
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
}

/** What every 2026-07-28 result carries before its own fields: the same bytes a modern server writes. */
const MODERN_FIELDS = `"resultType":"complete","_meta":${JSON.stringify({
  'io.modelcontextprotocol/serverInfo': { name: 'floor', version: '0.0.0' },
})}`;

const INITIALIZE_RESULT = JSON.stringify({
  protocolVersion: '2025-06-18',
  capabilities: { tools: {} },
  serverInfo: { name: 'floor', version: '0.0.0' },
});

const TOOLS_LIST_RESULT = JSON.stringify({
  tools: CATALOGUE.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
  })),
});

/** The answer's JSON, or undefined for a notification. */
function answer(store: CatalogueStore, message: Message): string | undefined {
  if (message.id === undefined) return undefined;
  const result = resultOf(store, message);
  // No validation: a request naming a protocol version is answered in that era's shape.
  const modern = message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined;
  const body = !modern
    ? result
    : result === '{}'
      ? `{${MODERN_FIELDS}}`
      : `{${MODERN_FIELDS},${result.slice(1)}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${body}}`;
}

function resultOf(store: CatalogueStore, message: Message): string {
  if (message.method === 'tools/call') {
    const text = store.call(String(message.params?.name), message.params?.arguments ?? {});
    return JSON.stringify({ content: [{ type: 'text', text }] });
  }
  if (message.method === 'tools/list') return TOOLS_LIST_RESULT;
  if (message.method === 'initialize') return INITIALIZE_RESULT;
  return '{}';
}

function serveNdjson(store: CatalogueStore, input: Readable, output: Writable): void {
  let buffered = '';
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    let out = '';
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const reply = line.length > 0 ? answer(store, JSON.parse(line) as Message) : undefined;
      if (reply !== undefined) out += `${reply}\n`;
      newline = buffered.indexOf('\n');
    }
    if (out.length > 0) output.write(out);
  });
}

export async function launchFloor(launch: ServerLaunch): Promise<void> {
  const store = new CatalogueStore();
  if (launch.transport === 'stdio') {
    serveNdjson(store, process.stdin, process.stdout);
    await launch.stopped;
    return;
  }
  if (launch.transport === 'unix') {
    const server = createNetServer((socket: Socket) => serveNdjson(store, socket, socket));
    await new Promise<void>((resolve) => server.listen(launch.socketPath, resolve));
    launch.ready({});
    await launch.stopped;
    server.close();
    return;
  }
  const http = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
      const reply = answer(store, message);
      if (reply === undefined) {
        res.writeHead(202).end();
        return;
      }
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(reply),
      };
      if (message.method === 'initialize') headers['mcp-session-id'] = 'floor';
      res.writeHead(200, headers).end(reply);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  launch.ready({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  await launch.stopped;
  http.close();
}
