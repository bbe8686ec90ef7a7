/**
 * Benchmark: what `use()`, `useToolCall()` and `requiredScopes` cost on a direct tools/call.
 * Read the ratios: bare (no middleware, no hooks, nothing scoped) is the baseline the other rows
 * add to; bare must match a dispatcher that never heard of them.
 */
import type { JsonRpcRequest } from '@agentd/rpc-frame';
import { silentLogger } from '@agentd/server';
import { bench, describe } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { makeContext } from './test-support/request-context.js';

function build(): Dispatcher {
  const d = new Dispatcher({ logger: silentLogger });
  d.registerTool({
    name: 'lookup',
    description: 'Looks up',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    handler: (a) => `found ${String(a.id)}`,
  });
  return d;
}

const bare = build();
const wrapped = build()
  .use((_ctx, next) => next())
  .useToolCall((_call, next) => next());
const scoped = build();
scoped.registerTool({ name: 'admin', description: 'Admin', requiredScopes: ['admin'], handler: () => 'x' });

const plain = makeContext();
const oauth = makeContext({
  peer: { transport: 'http', auth: { principal: 'p', scopes: ['read'], scheme: 'oauth' } },
});
let id = 1;
const call = (): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: id++,
  method: 'tools/call',
  params: { name: 'lookup', arguments: { id: 'srv-42' } },
});

describe('tools/call: middleware, hooks and scopes', () => {
  bench('bare', async () => {
    await bare.handle(call(), plain);
  });
  bench('one pass-through middleware + one tool hook', async () => {
    await wrapped.handle(call(), plain);
  });
  bench('OAuth peer, a scoped tool registered', async () => {
    await scoped.handle(call(), oauth);
  });
});
