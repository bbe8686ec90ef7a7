/**
 * Issue 39, finding 1 across a fleet: the starter travels with a run's record through Redis, so
 * an anonymous peer on another replica cannot read or subscribe to the run by its id, while an
 * operator there can (and sees who started it).
 */
import { clusterBinariesAvailable, type RedisServer, startRedisServer } from '@agentd/cluster-harness';
import { type Json, NdjsonClient, resourceValue, toolValue } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agentd, startAgentd } from './support/agentd-process.js';
import { httpRequest } from './support/mixed-peers.js';

const runnable = clusterBinariesAvailable('agentd run access across a fleet', ['redis-server']);

let redis: RedisServer;
const replicas: Agentd[] = [];
const clients: Client[] = [];

async function replica(id: string): Promise<Agentd> {
  const agentd = await startAgentd({
    http: true,
    config: {
      exposure: 'classic',
      agents: { talker: { mode: 'plain', command: '/bin/sh', args: ['-c', 'echo "said {instruction}"'] } },
      defaultAgent: 'talker',
    },
    args: ['--no-watch', '--instance-id', id],
    env: { AGENTD_REDIS_URL: redis.url },
  });
  replicas.push(agentd);
  return agentd;
}

async function anonymousSession(url: string): Promise<Client> {
  const client = new Client({ name: 'run-access-fleet', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe.runIf(runnable)('run data across replicas', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await redis?.close();
  });

  it('a run started anonymously on one replica is not readable by run id from another, except by operators', async () => {
    const a = await replica('a');
    const b = await replica('b');
    const starter = await anonymousSession(a.httpUrl as string);
    const run = toolValue(
      (await starter.callTool({
        name: 'command_subagent.spawn',
        arguments: { instruction: 'fleet-secret' },
      })) as Json,
    );
    expect(run).toMatchObject({ state: 'succeeded', instance: 'a' });
    const uri = `agent://run/${String(run.runId)}`;
    // Its starter reads it on its own replica.
    expect(JSON.stringify(await starter.readResource({ uri }))).toContain('fleet-secret');

    // An anonymous peer on the other replica: not found, like an id that never existed.
    const id = String(run.runId);
    const theirs = JSON.stringify(
      await httpRequest(b.httpUrl as string, 'resources/read', { uri }),
    ).replaceAll(id, '<id>');
    const none = 'run_0000000000_nothing';
    const nothing = JSON.stringify(
      await httpRequest(b.httpUrl as string, 'resources/read', { uri: `agent://run/${none}` }),
    ).replaceAll(none, '<id>');
    expect(theirs).toBe(nothing);
    expect(theirs).not.toContain('fleet-secret');
    const watcher = await anonymousSession(b.httpUrl as string);
    await expect(watcher.subscribeResource({ uri })).rejects.toThrow();

    // An operator on the other replica reads it from Redis, starter included.
    const operator = await NdjsonClient.connect(b.socket);
    try {
      const record = resourceValue(await operator.modernResult('resources/read', { uri }));
      expect(record).toMatchObject({ instance: 'a', output: 'said fleet-secret', startedBy: run.startedBy });
      expect(record.startedBy).toMatchObject({ trust: 'restricted' });
    } finally {
      operator.stream.end();
    }
  });

  it('names a run whose record Redis did not take by run id, never by handle', async () => {
    const c = replicas[0] ?? (await replica('a'));
    const since = c.logs.length;
    await redis.stop();
    const operator = await NdjsonClient.connect(c.socket);
    try {
      const run = toolValue(
        await operator.modernResult('tools/call', {
          name: 'command_subagent.spawn',
          arguments: { instruction: 'during the outage' },
        }),
      );
      const line = await c.waitForLog((l) => l.msg === 'run record not written to Redis', {
        since,
        timeoutMs: 20_000,
      });
      expect(line.runId).toBe(run.runId);
      expect(JSON.stringify(c.logs.slice(since))).not.toContain(String(run.handle));
    } finally {
      operator.stream.end();
      await redis.start();
    }
  }, 60_000);
});
