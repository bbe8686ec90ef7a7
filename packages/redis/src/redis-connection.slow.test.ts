/** RedisConnection.connect: the first connection fails clearly and promptly; later outages are retried forever. */
import { createServer, type Server, type Socket } from 'node:net';
import {
  clusterBinariesAvailable,
  freePort,
  type RedisServer,
  startRedisServer,
} from '@agentd/cluster-harness';
import { LocalError } from '@agentd/rpc-frame';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { until } from './test-support/capture-writer.js';

async function connectError(options: Parameters<typeof RedisConnection.connect>[0]): Promise<LocalError> {
  const outcome = await RedisConnection.connect(options).then(
    async (connection) => {
      await connection.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(LocalError);
  return outcome as LocalError;
}

describe('RedisConnection.connect without a Redis', () => {
  it('rejects at once with redis_unavailable when the port is closed, naming the URL without its password', async () => {
    const port = await freePort(); // nothing listens there
    const error = await connectError({
      url: `redis://user:s3cret@127.0.0.1:${port}/0`,
      connectTimeoutMs: 60_000,
    });
    expect(error.code).toBe('redis_unavailable');
    expect(error.message).toContain(`redis://user:***@127.0.0.1:${port}/0`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('s3cret');
  });

  // ENOTFOUND rejects at once; a resolver that cannot answer (EAI_AGAIN, e.g. offline) is retried until the deadline.
  it('rejects when the host name does not resolve', async () => {
    const error = await connectError({ url: 'redis://no-such-host.invalid:6379', connectTimeoutMs: 2_000 });
    expect(error.code).toBe('redis_unavailable');
    expect(error.message).toContain('redis://no-such-host.invalid:6379');
    expect(error.message).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('rejects after connectTimeoutMs when the peer accepts but never answers', async () => {
    const sockets = new Set<Socket>();
    let open = 0;
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      open++;
      socket.on('error', () => undefined);
      socket.on('close', () => open--);
      socket.resume(); // read (and ignore) the handshake, so the client's FIN is seen
      socket.on('end', () => socket.destroy());
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const error = await connectError({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 });
      expect(error.code).toBe('redis_unavailable');
      expect(error.message).toContain(`redis://127.0.0.1:${port}`);
      expect(error.message).toContain('no answer within 300 ms');
      // The abandoned attempt's socket is closed, not left dangling.
      expect(sockets.size).toBeGreaterThan(0);
      await until(() => open === 0, 'the attempt closed');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('rejects what is not a Redis URL with invalid_option', async () => {
    for (const url of ['not a url', 'http://127.0.0.1:6379']) {
      const error = await connectError({ url });
      expect(error.code).toBe('invalid_option');
    }
    const error = await connectError({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 0 });
    expect(error.code).toBe('invalid_option');
  });
});

const haveRedis = clusterBinariesAvailable('@agentd/redis connection', ['redis-server']);

describe.runIf(haveRedis)('RedisConnection.connect with a real redis-server', () => {
  let redis: RedisServer;
  let guarded: RedisServer;
  beforeAll(async () => {
    [redis, guarded] = await Promise.all([
      startRedisServer(),
      startRedisServer({ args: ['--requirepass', 'right'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([redis?.close(), guarded?.close()]);
  });

  it('rejects at once when Redis refuses the password', async () => {
    const url = guarded.url.replace('redis://', 'redis://:wrong@');
    const error = await connectError({ url, connectTimeoutMs: 60_000 });
    expect(error.code).toBe('redis_unavailable');
    expect(error.message).toContain('redis://:***@127.0.0.1');
    expect(error.message).not.toContain('wrong');
    const ok = await RedisConnection.connect({ url: guarded.url.replace('redis://', 'redis://:right@') });
    expect(await ok.command(['PING'])).toBe('PONG');
    await ok.close();
  });

  it('once connected, keeps reconnecting through an outage longer than connectTimeoutMs', async () => {
    const connection = await RedisConnection.connect({
      url: redis.url,
      connectTimeoutMs: 200,
      maxReconnectDelayMs: 50,
    });
    try {
      expect(await connection.command(['SET', 'k', 'v'])).toBe('OK');
      await redis.stop();
      await until(() => !connection.ready, 'the outage seen');
      await expect(connection.command(['PING'])).rejects.toThrow();
      // sleep-is-the-point: refused attempts for well past the first-connect deadline: still retrying.
      await new Promise((resolve) => setTimeout(resolve, 800));
      const readyAgain = new Promise<void>((resolve) => connection.onReady(resolve));
      await redis.start();
      await readyAgain;
      expect(await connection.command(['PING'])).toBe('PONG');
    } finally {
      await connection.close();
    }
  });
});
