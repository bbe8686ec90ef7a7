/** End to end: several HTTP(S) listeners on one daemon share its core, so their connection ids never collide. */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { type Json, LOCALHOST_TLS, modernMeta } from '@agentd/test-support';
import { describe, expect, it } from 'vitest';
import { startAgentd } from './support/agentd-process.js';

const CERT = LOCALHOST_TLS.cert;
const KEY = LOCALHOST_TLS.key;
const CA = readFileSync(CERT, 'utf8');

/** Ports free right now (the daemon refuses two identical targets, so `:0` cannot be given twice). */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  // All held open at once, so the kernel cannot hand out the same port twice.
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** POSTs a modern request; resolves with the response as it starts (its body still streaming). */
function post(url: string, method: string, params: Json, id: number): Promise<IncomingMessage> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } });
  const options = {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': method,
      'mcp-protocol-version': '2026-07-28',
      'content-length': Buffer.byteLength(body),
    },
  };
  return new Promise((resolve, reject) => {
    const req = url.startsWith('https:')
      ? httpsRequest(url, { ...options, ca: CA, servername: 'localhost' }, resolve)
      : httpRequest(url, options, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

function text(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let all = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      all += chunk;
    });
    res.on('end', () => resolve(all));
    res.on('error', reject);
  });
}

/** Opens a subscriptions/listen stream and resolves once it is acknowledged (its connection is open). */
async function listen(url: string, id: number): Promise<IncomingMessage> {
  const res = await post(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, id);
  expect(res.statusCode).toBe(200);
  res.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: string) => {
      seen += chunk;
      if (seen.includes('notifications/subscriptions/acknowledged')) {
        res.off('data', onData);
        resolve();
      }
    };
    res.on('data', onData);
    res.once('end', () => reject(new Error(`listen stream ended: ${seen}`)));
  });
  return res;
}

describe('several HTTP listeners on one daemon', () => {
  it('requests on one listener succeed while listen streams are open on the others (http and https)', async () => {
    const [portA, portB] = await freePorts(2);
    const agentd = await startAgentd({
      args: [
        '--serve',
        `http://127.0.0.1:${portA}`,
        '--serve',
        `http://127.0.0.1:${portB}`,
        '--serve',
        'https://127.0.0.1:0',
        '--tls-cert',
        CERT,
        '--tls-key',
        KEY,
      ],
    });
    const streams: IncomingMessage[] = [];
    try {
      const urls = agentd.stdout
        .join('')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^https?:\/\//.test(l));
      const [a, b] = urls.filter((u) => u.startsWith('http:'));
      const secure = urls.find((u) => u.startsWith('https:'));
      if (a === undefined || b === undefined || secure === undefined) throw new Error(`listeners: ${urls}`);
      // Streams that hold the first ids each listener would mint if it counted on its own.
      streams.push(await listen(a, 1), await listen(a, 2), await listen(secure, 3));
      let id = 10;
      for (const url of [b, secure, a, b]) {
        const res = await post(url, 'tools/list', {}, ++id);
        const body = await text(res);
        expect(res.statusCode, body).toBe(200);
        const message = JSON.parse(body) as Json;
        expect(message.error, body).toBeUndefined();
        expect(Array.isArray((message.result as Json).tools)).toBe(true);
      }
      expect(JSON.stringify(agentd.logs)).not.toContain('duplicate_connection');
    } finally {
      for (const stream of streams) stream.destroy();
      await agentd.stop();
    }
  }, 60_000);
});
