/**
 * A child process serving MCP on its stdio from the built package, for the official-client tests:
 * `slow` reports progress, waits for its signal and logs `aborted <id>` to stderr; `echo` echoes.
 */
import { JsonRpcErrorCode, WireError } from '@agentd/rpc-frame';
import { createServerCore, serveStdio } from '../../dist/index.js';

const TOOLS = [
  { name: 'slow', description: 'Waits until cancelled.', inputSchema: { type: 'object' } },
  { name: 'echo', description: 'Echoes its arguments.', inputSchema: { type: 'object' } },
];

const handler = {
  capabilities: () => ({ tools: { listChanged: true } }),
  handle: async (request, ctx) => {
    if (request.method === 'tools/list') return { tools: TOOLS };
    if (request.method !== 'tools/call')
      throw new WireError(JsonRpcErrorCode.MethodNotFound, 'Method not found');
    if (request.params?.name === 'slow') {
      ctx.notify({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: ctx.progressToken ?? 0, progress: 0 },
      });
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      process.stderr.write(`aborted ${JSON.stringify(ctx.requestId)}\n`);
      return { content: [] };
    }
    return { content: [{ type: 'text', text: JSON.stringify(request.params?.arguments ?? {}) }] };
  },
};

await serveStdio(createServerCore({ handler, serverInfo: { name: 'official-child', version: '0' } }));
