import { createServer, type Server } from 'node:http';
import { createConnection } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterBinariesAvailable, INSTALL_COMMAND } from './binaries.js';
import { startNginx } from './nginx.js';
import { renderNginxConfig } from './nginx-config.js';
import { startRedisServer } from './redis-server.js';

/** One raw RESP round trip: `PING` → `+PONG`, or the connect error. */
function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('error', reject);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      resolve(data.toString().trim());
      socket.end();
    });
  });
}

describe('the gate', () => {
  const none = () => undefined;
  it('throws under CI=true when a binary is missing', () => {
    expect(() =>
      clusterBinariesAvailable('gate test', ['nginx'], { env: { CI: 'true' }, find: none }),
    ).toThrow(INSTALL_COMMAND);
  });
  it('prints one SKIPPED line elsewhere and returns false', () => {
    const lines: string[] = [];
    const options = { env: {}, find: none, write: (line: string) => lines.push(line) };
    expect(clusterBinariesAvailable('gate test 2', ['redis-server', 'nginx'], options)).toBe(false);
    expect(clusterBinariesAvailable('gate test 2', ['redis-server', 'nginx'], options)).toBe(false);
    expect(lines).toEqual([`SKIPPED: gate test 2: redis-server and nginx not found (${INSTALL_COMMAND})`]);
  });
  it('passes when the binaries exist', () => {
    expect(
      clusterBinariesAvailable('gate test 3', ['nginx'], { env: { CI: 'true' }, find: () => '/x/nginx' }),
    ).toBe(true);
  });
});

describe('nginx config', () => {
  it('refuses a prefix count that does not match the replicas', () => {
    expect(() =>
      renderNginxConfig({
        port: 1,
        prefix: '/tmp/x',
        replicas: ['127.0.0.1:1', '127.0.0.1:2'],
        sessionPrefixes: ['a'],
      }),
    ).toThrow('1 entries for 2 replicas');
  });
});

const haveRedis = clusterBinariesAvailable('cluster-harness redis-server', ['redis-server']);
describe.runIf(haveRedis)('redis-server', () => {
  it('starts on a free port, restarts on the same port, and stops', async () => {
    const redis = await startRedisServer();
    try {
      expect(await ping(redis.port)).toBe('+PONG');
      await redis.stop();
      expect(redis.running).toBe(false);
      await expect(ping(redis.port)).rejects.toThrow(/ECONNREFUSED/);
      await redis.start();
      expect(await ping(redis.port)).toBe('+PONG');
      await redis.restart();
      expect(await ping(redis.port)).toBe('+PONG');
    } finally {
      await redis.close();
    }
    expect(redis.running).toBe(false);
  });
});

const haveNginx = clusterBinariesAvailable('cluster-harness nginx', ['nginx']);
describe.runIf(haveNginx)('nginx', () => {
  const backends: Server[] = [];
  afterAll(async () => {
    await Promise.all(backends.map((b) => new Promise((resolve) => b.close(resolve))));
  });

  /** A backend that names itself and echoes Host; `/stream` holds its response open until `/release`. */
  async function backend(name: string): Promise<string> {
    let release = () => {};
    const server = createServer((req, res) => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: first from ${name}\n\n`);
        release = () => res.end('data: second\n\n');
        return;
      }
      if (req.url === '/release') {
        release();
        res.end('{}');
        return;
      }
      res.end(JSON.stringify({ name, host: req.headers.host, connection: req.headers.connection ?? null }));
    });
    backends.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  }

  it('proxies round-robin with the client Host, streams unbuffered, and routes sessions by prefix', async () => {
    const a = await backend('a');
    const b = await backend('b');
    const nginx = await startNginx({ replicas: [a, b], sessionPrefixes: ['ra-', 'rb-'] });
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) {
        const body = (await (await fetch(`${nginx.url}/x`)).json()) as {
          name: string;
          host: string;
          connection: string | null;
        };
        expect(body.host).toBe(`127.0.0.1:${nginx.port}`);
        // HTTP/1.1 keepalive upstream: nginx sends no `Connection: close`.
        expect(body.connection).toBeNull();
        seen.add(body.name);
      }
      expect([...seen].sort()).toEqual(['a', 'b']);

      for (let i = 0; i < 3; i++) {
        const toB = await fetch(`${nginx.url}/x`, { headers: { 'mcp-session-id': 'rb-123' } });
        expect(((await toB.json()) as { name: string }).name).toBe('b');
      }

      // One backend only, so /stream and /release meet on it.
      const solo = await startNginx({ replicas: [a] });
      try {
        const stream = await fetch(`${solo.url}/stream`);
        const reader = stream.body?.getReader();
        const first = await reader?.read();
        // The first event arrives while the backend still holds the response open: nothing buffers it.
        expect(new TextDecoder().decode(first?.value)).toBe('data: first from a\n\n');
        await fetch(`${solo.url}/release`);
        let rest = '';
        for (;;) {
          const next = await reader?.read();
          if (next === undefined || next.done) break;
          rest += new TextDecoder().decode(next.value);
        }
        expect(rest).toBe('data: second\n\n');
      } finally {
        await solo.close();
      }
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${nginx.output()}`);
    } finally {
      await nginx.close();
    }
  });

  it('sends a dead primary’s sessions to a backup', async () => {
    const a = await backend('a2');
    const dead = '127.0.0.1:1';
    const nginx = await startNginx({ replicas: [dead, a], sessionPrefixes: ['r0-', 'r1-'] });
    try {
      const res = await fetch(`${nginx.url}/x`, {
        method: 'POST',
        body: '{}',
        headers: { 'mcp-session-id': 'r0-9' },
      });
      expect(((await res.json()) as { name: string }).name).toBe('a2');
    } finally {
      await nginx.close();
    }
  });
});
