import { Dispatcher } from '@agentd/dispatch';
import { createServerCore, silentLogger } from '@agentd/server';
import { expect, it } from 'vitest';
import { serveHttp } from './node.js';
import { modernPost } from './test-support/harness.js';

it('runs the README example', async () => {
  const dispatcher = new Dispatcher();
  dispatcher.registerTool({
    name: 'greet',
    description: 'Greets',
    handler: ({ name }) => `Hello, ${String(name)}!`,
  });
  const core = createServerCore({
    handler: dispatcher,
    serverInfo: { name: 'demo', version: '1.0.0' },
    logger: silentLogger,
  });
  const http = await serveHttp(core, { host: '127.0.0.1', port: 0 });
  expect(http.url).toBe(`http://127.0.0.1:${http.address.port}/mcp`);
  const res = await modernPost(http.url, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } });
  expect(await res.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'Hello, Ada!' }] } });
  await http.close(5_000);
  await core.close();
});
