/** `sessionIdPrefix`: minted legacy session ids start with it (a balancer routes on it); bad prefixes are refused. */
import { createServerCore, silentLogger } from '@agentd/server';
import { toolHandler } from '@agentd/test-support';
import { expect, it } from 'vitest';
import { serveHttp } from './node.js';

const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

it('mints legacy session ids with the prefix, and the session works', async () => {
  const core = createServerCore({
    handler: toolHandler(),
    serverInfo: { name: 't', version: '1' },
    logger: silentLogger,
  });
  const t = await serveHttp(core, { sessionIdPrefix: 'r2-' });
  const url = `http://localhost:${t.address.port}/mcp`;
  try {
    const init = await fetch(url, { method: 'POST', headers: H, body: JSON.stringify(INIT) });
    await init.text();
    const session = init.headers.get('mcp-session-id') ?? '';
    expect(session).toMatch(/^r2-[0-9a-f]{32}$/);
    const list = await fetch(url, {
      method: 'POST',
      headers: { ...H, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    await list.text();
  } finally {
    await t.close();
    await core.close();
  }
});

it.each(['', 'has space', 'x'.repeat(33), 'é'])('refuses sessionIdPrefix %j', async (prefix) => {
  const core = createServerCore({
    handler: toolHandler(),
    serverInfo: { name: 't', version: '1' },
    logger: silentLogger,
  });
  await expect(serveHttp(core, { sessionIdPrefix: prefix })).rejects.toThrow(/sessionIdPrefix must be/);
  await core.close();
});
