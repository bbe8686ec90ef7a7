/** Bench child process: serves one echo tool with `bare` node:http, `agentd`, or the official SDK (`sdk`: SSE answers, its default; `sdk-json`: enableJsonResponse); prints its port. */
import { createServer } from 'node:http';

const ECHO_TEXT = (args) => String(args?.text ?? '');

async function bare() {
  // The floor: read the body, parse it, answer a fixed-shape JSON-RPC result.
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: msg.id,
        result: { content: [{ type: 'text', text: ECHO_TEXT(msg.params?.arguments) }] },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server.address().port;
}

async function agentd() {
  const { Dispatcher } = await import('@agentd/dispatch');
  const { createServerCore, silentLogger } = await import('@agentd/server');
  const { serveHttp } = await import('@agentd/transport-http/node');
  const dispatcher = new Dispatcher({ logger: { error: () => undefined } });
  dispatcher.registerTool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: (args) => ECHO_TEXT(args),
  });
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'bench', version: '1.0.0' },
    logger: silentLogger,
  });
  const transport = await serveHttp(core, { port: 0 });
  return transport.address.port;
}

async function sdk(json = false) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const { z } = await import('zod');
  // The SDK's documented stateless pattern: a new McpServer + transport for every request.
  const getServer = () => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes its text', inputSchema: { text: z.string() } },
      async (args) => ({
        content: [{ type: 'text', text: ECHO_TEXT(args) }],
      }),
    );
    return server;
  };
  const http = createServer(async (req, res) => {
    const server = getServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  return http.address().port;
}

const kind = process.argv[2];
const start = { bare, agentd, sdk, 'sdk-json': () => sdk(true) }[kind];
if (start === undefined) {
  process.stderr.write(`usage: servers.mjs bare|agentd|sdk|sdk-json\n`);
  process.exit(2);
}
const port = await start();
process.stdout.write(`${JSON.stringify({ port })}\n`);
