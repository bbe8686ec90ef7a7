import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, MODERN_META, modernPost, startHarness } from './test-support/harness.js';

const EIGHT_MIB = 8 * 1024 * 1024;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/list',
};

function bigBody(size: number): Buffer {
  const head = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: MODERN_META, pad: '' },
  });
  const padded = `${head.slice(0, -3)}${'x'.repeat(size - head.length)}"}}`;
  return Buffer.from(padded);
}

/**
 * Sends the head and the first MiB, waits until the answer has arrived, then sends the rest of the
 * body and waits for the server's close. A server that closes on unread body bytes makes these
 * late writes fail with EPIPE or a reset, which rejects.
 */
function rawExchange(port: number, head: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let rest: Buffer | undefined = body.subarray(1024 * 1024);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
      if (rest !== undefined && text.includes('\r\n\r\n')) {
        socket.write(rest);
        rest = undefined;
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(head);
    socket.write(body.subarray(0, 1024 * 1024));
  });
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('413 for a body over the default 4 MiB limit reaches the client', () => {
  it('fetch sending 8 MiB gets 413 with a JSON-RPC error body', async () => {
    const res = await fetch(h.url, { method: 'POST', headers: HEADERS, body: bigBody(EIGHT_MIB) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    const after = await modernPost(h.url, 'tools/list');
    expect(after.status).toBe(200);
    await after.text();
  });

  it('a raw socket declaring and sending 8 MiB gets the 413 and can finish sending, then a clean close', async () => {
    const body = bigBody(EIGHT_MIB);
    const head =
      `POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n` +
      `mcp-method: tools/list\r\ncontent-length: ${body.length}\r\n\r\n`;
    const answer = await rawExchange(h.transport.address.port, head, body);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(json).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('4194304') },
    });
  });
});
