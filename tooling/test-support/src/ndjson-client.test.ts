/** The test client over a pair of real streams (a child's stdout and stdin, as stdio tests use it). */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NdjsonClient } from './ndjson-client.js';

/** A client, the stream the "server" writes to, and the lines the client wrote. */
function setup() {
  const fromServer = new PassThrough();
  const toServer = new PassThrough();
  const written: unknown[] = [];
  let buffer = '';
  toServer.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      written.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  return { client: new NdjsonClient(fromServer, toServer), fromServer, written };
}

const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

describe('NdjsonClient', () => {
  it('keeps every message in order, JSON that is not JSON-RPC included, and resolves a request by id', async () => {
    const { client, fromServer, written } = setup();
    const answer = client.request('tools/list', { cursor: 'c' }, 'r1');
    expect(written).toEqual([{ jsonrpc: '2.0', id: 'r1', method: 'tools/list', params: { cursor: 'c' } }]);
    fromServer.write(
      `${line({ method: 'notifications/message', params: { data: 1 } })}[1,2]\n${line({ id: 'r1', result: { tools: [] } })}`,
    );
    expect(await answer).toEqual({ jsonrpc: '2.0', id: 'r1', result: { tools: [] } });
    expect(client.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: 1 } },
      [1, 2],
      { jsonrpc: '2.0', id: 'r1', result: { tools: [] } },
    ]);
    expect(client.notifications('notifications/message')).toHaveLength(1);
  });

  it('answers server requests with onRequest, and leaves them to the test without it', async () => {
    const { client, fromServer, written } = setup();
    fromServer.write(line({ id: 's1', method: 'roots/list' }));
    await client.waitFor((m) => m.id === 's1');
    expect(written).toEqual([]);
    client.onRequest = (message) => ({ echoed: message.method ?? '' });
    fromServer.write(line({ id: 's2', method: 'sampling/createMessage' }));
    await client.waitFor((m) => m.id === 's2');
    expect(written).toEqual([{ jsonrpc: '2.0', id: 's2', result: { echoed: 'sampling/createMessage' } }]);
  });

  it('fails its waits when the server writes a line that is not JSON', async () => {
    const { client, fromServer } = setup();
    const waiting = client.request('ping');
    fromServer.write('not json\n');
    await expect(waiting).rejects.toThrow(
      'the peer sent a line that is not JSON (Parse error: not valid JSON)',
    );
    await expect(client.waitFor(() => false)).rejects.toThrow('not JSON');
  });

  it('reads a last line without its newline when the stream ends', async () => {
    const { client, fromServer } = setup();
    fromServer.end(JSON.stringify({ jsonrpc: '2.0', method: 'bye' }));
    await client.closed();
    expect(client.messages).toEqual([{ jsonrpc: '2.0', method: 'bye' }]);
    expect(client.ended).toBe(true);
  });
});
