// One replica of a scaled-out MCP server (built packages): HTTP on a free loopback port, the
// subscription bus, the task store, the SSE event store and the requestState key on Redis. Prints
// {"url","port"} once listening; SIGTERM stops it. Env: REDIS_URL, NAME, SESSION_PREFIX (optional),
// REDIS_PREFIX, RETRY_MS (optional: the SSE `retry:` advice).
import { Dispatcher } from '@agentd/dispatch';
import {
  RedisConnection,
  RedisEventBus,
  RedisEventStore,
  RedisTaskStore,
  sharedRequestStateKey,
} from '@agentd/redis';
import { createServerCore, silentLogger } from '@agentd/server';
import { SubscriptionRegistry } from '@agentd/subscriptions';
import { serveHttp } from '@agentd/transport-http/node';

const name = process.env.NAME ?? 'replica';
const connection = await RedisConnection.connect({
  url: process.env.REDIS_URL,
  prefix: process.env.REDIS_PREFIX ?? 'mcp:',
});
const [bus, store, key, eventStore] = await Promise.all([
  RedisEventBus.create(connection),
  RedisTaskStore.create(connection),
  sharedRequestStateKey(connection),
  RedisEventStore.create(connection),
]);
const registry = new SubscriptionRegistry({ bus });
let aborted = 0;
const dispatcher = new Dispatcher({ logger: silentLogger, tasks: { store }, requestState: { key } });
dispatcher.registerTool({ name: 'whoami', description: 'The replica that answered', handler: () => name });
dispatcher.registerTool({
  name: 'touch',
  description: 'Raises resources/updated for a uri (kept subscriptions)',
  inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  handler: ({ uri }) => {
    core.notifyResourceUpdated(uri, { keep: true });
    return `touched ${uri} on ${name}`;
  },
});
dispatcher.registerTool({
  name: 'wait',
  description: 'A task that finishes after `ms`, or counts an abort',
  inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
  task: 'optional',
  handler: ({ ms }, ctx) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(`waited ${ms} on ${name}`), ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        aborted += 1;
        reject(new Error('aborted'));
      });
    }),
});
dispatcher.registerTool({
  name: 'aborted',
  description: 'Task runs aborted here',
  handler: () => String(aborted),
});
dispatcher.registerTool({
  name: 'ask',
  description: 'Asks for a name (multi-round-trip), then greets',
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit(
      {
        mode: 'form',
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
      { key: 'name' },
    );
    return `Hello, ${answer.content?.name} (from ${name})`;
  },
});
dispatcher.registerTool({
  name: 'ask-task',
  description: 'A task that asks for a name, then greets',
  task: 'optional',
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit(
      {
        mode: 'form',
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
      { key: 'name' },
    );
    return `Hello, ${answer.content?.name} (task on ${name})`;
  },
});
// Parked `poll` calls by key, released by the `release` tool (on this replica).
const parked = new Map();
dispatcher.registerTool({
  name: 'poll',
  description: 'Closes its SSE stream (legacy), reports progress, answers once released or after `ms`',
  inputSchema: {
    type: 'object',
    properties: { key: { type: 'string' }, ms: { type: 'number' } },
    required: ['key'],
  },
  handler: async ({ key, ms }, ctx) => {
    ctx.request.closeStream?.();
    ctx.progress(1, 2, `closed on ${name}`);
    await new Promise((resolve) => {
      parked.set(key, resolve);
      if (ms !== undefined) setTimeout(resolve, ms);
    });
    parked.delete(key);
    ctx.progress(2, 2, `finishing on ${name}`);
    return `polled ${key} on ${name}`;
  },
});
dispatcher.registerTool({
  name: 'release',
  description: 'Lets a parked `poll` call finish',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  handler: ({ key }) => {
    const resolve = parked.get(key);
    resolve?.();
    return resolve === undefined ? `nothing parked as ${key}` : `released ${key}`;
  },
});
dispatcher.registerResource({
  uri: 'test://shared/doc',
  name: 'doc',
  mimeType: 'text/plain',
  read: () => ({ uri: 'test://shared/doc', mimeType: 'text/plain', text: `read on ${name}` }),
});
const core = createServerCore({
  handler: dispatcher,
  registry,
  serverInfo: { name: 'scale-out-replica', version: '0.0.0' },
  logger: silentLogger,
});
dispatcher.onTaskStatus((event) =>
  core.notifyTaskStatus(event.taskId, event.message, event.creatorConnectionId),
);
const sessionIdPrefix = process.env.SESSION_PREFIX;
const transport = await serveHttp(core, {
  host: '127.0.0.1',
  port: 0,
  ...(sessionIdPrefix ? { sessionIdPrefix } : {}),
  eventStore,
  ...(process.env.RETRY_MS ? { retryMs: Number(process.env.RETRY_MS) } : {}),
});
await bus.ready();
process.stdout.write(
  `${JSON.stringify({ url: `http://127.0.0.1:${transport.address.port}/mcp`, port: transport.address.port })}\n`,
);
process.once('SIGTERM', async () => {
  await transport.close(100);
  await core.close();
  await Promise.all([bus.close(), store.close(), eventStore.close()]);
  await connection.close();
  process.exit(0);
});
