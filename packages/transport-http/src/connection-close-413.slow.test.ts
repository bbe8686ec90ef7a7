/**
 * Issue 12 item 8: a client sending `Connection: close` gets its 413 every time. Node closes such
 * a connection as soon as the answer ends; with body bytes still unread, the kernel then sends a
 * reset that destroys the answer (8 of 10 clients saw a reset before the fix).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, MODERN_META, startHarness } from './test-support/harness.js';

const LIMIT = 4 * 1024 * 1024;

function body(size: number): Buffer {
  const head = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: MODERN_META, pad: '' },
  });
  return Buffer.from(`${head.slice(0, -3)}${'x'.repeat(size - head.length)}"}}`);
}

/**
 * Like curl or a simple HTTP library: writes the head and the whole body, in pieces, and reads
 * the answer only once everything is sent. A reset meanwhile fails the writes or drops the answer.
 */
function send(port: number, size: number, chunked: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const payload = body(size);
    let text = '';
    socket.setEncoding('latin1');
    socket.on('end', () => resolve(text));
    socket.on('error', (error) => reject(Object.assign(error, { read: text })));
    const pieces: (string | Buffer)[] = [];
    pieces.push(
      `POST /mcp HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\n` +
        (chunked ? 'transfer-encoding: chunked\r\n\r\n' : `content-length: ${payload.length}\r\n\r\n`),
    );
    const step = 64 * 1024;
    for (let at = 0; at < payload.length; at += step) {
      const piece = payload.subarray(at, at + step);
      if (chunked) pieces.push(`${piece.length.toString(16)}\r\n`, piece, '\r\n');
      else pieces.push(piece);
    }
    if (chunked) pieces.push('0\r\n\r\n');
    const next = () => {
      const piece = pieces.shift();
      if (piece === undefined) {
        socket.on('data', (d: string) => {
          text += d;
        });
        return;
      }
      socket.write(piece, () => setImmediate(next));
    };
    next();
  });
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxBodyBytes: LIMIT });
});
afterAll(() => h.close());

describe('413 with Connection: close', () => {
  it('reaches 10 of 10 clients declaring a too-large Content-Length', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => send(h.transport.address.port, LIMIT * 2, false)),
    );
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        error: { code: -32600 },
      });
    }
  });

  it('answers 413, not 500, to a Content-Length past what it would drain, and cuts the connection', async () => {
    // Over four times the limit the body is not drained: the answer goes out, then the socket is cut.
    const socket = connect(h.transport.address.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(
      'POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
        'accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n' +
        `content-length: ${LIMIT * 5}\r\n\r\n{"jsonrpc":"2.0"`,
    );
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toContain('Payload Too Large');
  });

  it('reaches 10 of 10 clients streaming a too-large chunked body', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => send(h.transport.address.port, LIMIT * 2, true)),
    );
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});
