/** Starts a real ServerCore + HTTP transport on an ephemeral loopback port for a test. */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { createServerCore, type ServerCore, silentLogger } from '@agentd/server';
import { type ToolHandlerOptions, toolHandler } from '@agentd/test-support';
import { type HttpTransportOptions, serveHttp } from '../node.js';

export interface Harness {
  core: ServerCore;
  /** The test handler, with its records of connects and aborts. */
  handler: ReturnType<typeof toolHandler>;
  transport: Awaited<ReturnType<typeof serveHttp>>;
  url: string;
  close(): Promise<void>;
}

export async function startHarness(
  options: HttpTransportOptions = {},
  hooks: ToolHandlerOptions = {},
): Promise<Harness> {
  const handler = toolHandler(hooks);
  const core = createServerCore({
    handler,
    serverInfo: { name: 'transport-http-test', version: '1.0.0' },
    logger: silentLogger,
  });
  const transport = await serveHttp(core, options);
  const url = `http://localhost:${transport.address.port}${options.path ?? '/mcp'}`;
  return {
    core,
    handler,
    transport,
    url,
    async close() {
      await transport.close(1_000);
      await core.close();
    },
  };
}

export const MODERN_META = {
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientCapabilities]: {},
};

/** A conformant modern POST: headers mirror the body. */
export function modernPost(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  extra: { id?: number | string; headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
): Promise<Response> {
  const body = {
    jsonrpc: '2.0',
    id: extra.id ?? 1,
    method,
    params: { ...params, _meta: { ...MODERN_META, ...extra.meta } },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  const name =
    typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  if (name !== undefined) headers['mcp-name'] = name;
  return fetch(url, {
    method: 'POST',
    headers: { ...headers, ...extra.headers },
    body: JSON.stringify(body),
  });
}

/** Parses the `data:` lines of an SSE body into messages. */
export function sseMessages(body: string): Record<string, unknown>[] {
  // Empty data: a resumable stream's priming event.
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** A keep-alive node:http client for bulk requests (much cheaper per request than fetch). */
export function bulkClient(port: number, maxSockets = 16) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const post = (body: unknown, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          agent,
          headers: {
            host: 'localhost',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(payload),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { post, close: () => agent.destroy() };
}
