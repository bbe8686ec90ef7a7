/**
 * vsock's column of the cross-transport error table (apps/conformance-server checks stdio, unix
 * and HTTP against the expected texts): over vsock, each bad request gets the very answer stdio
 * gives from the same core, byte for byte. Here because vsock cannot connect to itself on one
 * machine, so only this package's stand-in (the addon's socket code on AF_UNIX) reaches it.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { createServerCore, openStdio, silentLogger } from '@agentd/server';
import { type Message, MODERN_META, NdjsonClient, toolHandler } from '@agentd/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { serveVsock } from './serve-vsock.js';
import { bindUnixViaAddon, connectUnixViaAddon, tempSocketPath } from './test-support/unix-stand-in.js';

const LEGACY = '2025-06-18';
const rpc = (id: number, method: string, params?: Record<string, unknown>) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );
const modern = (
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  meta: object = MODERN_META,
) => rpc(id, method, { ...params, _meta: meta });

/** A bad line, and whether it is sent inside an initialized legacy session. */
const ROWS: ReadonlyArray<{ name: string; body: string; session?: boolean }> = [
  { name: 'malformed JSON', body: '{"jsonrpc":"2.0","id":1,"method":' },
  { name: 'invalid envelope', body: JSON.stringify({ jsonrpc: '1.0', id: 2, method: 'tools/list' }) },
  {
    name: 'modern: missing clientCapabilities',
    body: modern(4, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }),
  },
  {
    name: 'modern: unsupported protocol version',
    body: modern(
      6,
      'tools/list',
      {},
      { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    ),
  },
  { name: 'modern: unknown method', body: modern(9, 'nothing/here') },
  { name: 'wrong era: ping sent modern-style', body: modern(10, 'ping') },
  {
    name: 'legacy: initialize without a protocol version',
    body: rpc(12, 'initialize', { capabilities: {} }),
  },
  { name: 'modern: an unknown tool', body: modern(16, 'tools/call', { name: 'nope', arguments: {} }) },
  { name: 'legacy: unknown method in a session', body: rpc(15, 'nothing/here'), session: true },
];

const core = createServerCore({
  handler: toolHandler(),
  serverInfo: { name: 'vsock-errors', version: '1.0.0' },
  logger: silentLogger,
});
const path = tempSocketPath();
const server = serveVsock(bindUnixViaAddon(path.path), core);
afterAll(async () => {
  await server.close(1_000);
  await core.close();
  path.cleanup();
});

/** Sends the row on a fresh connection and returns the first answer to it. */
async function answer(client: NdjsonClient, row: (typeof ROWS)[number]): Promise<Message> {
  if (row.session === true) {
    await client.initialize(LEGACY);
    client.notify('notifications/initialized');
  }
  const before = client.messages.length;
  client.sendRaw(`${row.body}\n`);
  return client.waitFor((m) => client.messages.indexOf(m) >= before, 10_000, `the answer to ${row.name}`);
}

async function overVsock(row: (typeof ROWS)[number]): Promise<Message> {
  const socket = connectUnixViaAddon(path.path);
  await once(socket, 'connect');
  try {
    return await answer(new NdjsonClient(socket), row);
  } finally {
    socket.destroy();
  }
}

async function overStdio(row: (typeof ROWS)[number]): Promise<Message> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const handle = openStdio(core, { stdin, stdout, redirectConsole: false });
  try {
    return await answer(new NdjsonClient(stdout, stdin), row);
  } finally {
    stdin.end();
    await handle.closed;
  }
}

describe('serveVsock answers a bad request exactly as stdio does', () => {
  it.each(ROWS)('$name', async (row) => {
    const [vsock, stdio] = await Promise.all([overVsock(row), overStdio(row)]);
    expect(stdio).toHaveProperty('error.code');
    expect(vsock).toEqual(stdio);
    expect(JSON.stringify(vsock)).toBe(JSON.stringify(stdio));
  });
});
