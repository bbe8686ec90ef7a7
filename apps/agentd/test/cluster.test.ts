/**
 * agentd as a fleet: three real replicas behind a real nginx, sharing runs through a real
 * redis-server, driven by the official SDK client through the balancer.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterBinariesAvailable, freePort, type Nginx, type RedisServer } from '@agentd/cluster-harness';
import { RedisConnection } from '@agentd/redis';
import { type Json, type ReplicaFleet, startReplicaFleet } from '@agentd/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agentd, cleanEnv, runCli, startAgentd } from './support/agentd-process.js';

const TOKEN = 'cluster-e2e-bearer-token-0123456789';
const LEASE_TTL_MS = 1500;
const runnable = clusterBinariesAvailable('agentd cluster end-to-end tests', ['redis-server', 'nginx']);

let fleet: ReplicaFleet<Agentd>;
let redis: RedisServer;
let nginx: Nginx;
const IDS = ['a', 'b', 'c'];
const replicas = new Map<string, Agentd>();
const clients: Client[] = [];

async function startReplica(id: string, redisUrl: string): Promise<Agentd> {
  const agentd = await startAgentd({
    http: true,
    config: { auth: { bearerTokens: [{ name: 'e2e', token: TOKEN }] }, exposure: 'classic' },
    args: ['--no-watch', '--instance-id', id, '--lease-ttl-ms', String(LEASE_TTL_MS)],
    env: { AGENTD_REDIS_URL: redisUrl },
  });
  replicas.set(id, agentd);
  return agentd;
}

/** A new SDK client through the balancer, and the replica its session landed on. */
async function connect(): Promise<{ client: Client; instance: string }> {
  const client = new Client({ name: 'agentd-cluster-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  clients.push(client);
  const status = await read(client, 'agent://status');
  return { client, instance: String(status.instance) };
}

/** Two clients whose sessions live on different replicas (round robin gets there at once). */
async function twoReplicas(): Promise<
  [{ client: Client; instance: string }, { client: Client; instance: string }]
> {
  const first = await connect();
  const seen = [first.instance];
  for (let i = 0; i < 10; i++) {
    // Each connect makes the same number of requests, which can lock round robin in phase: one
    // sessionless request moves it on by one replica.
    await fetch(`${nginx.url}/mcp`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) =>
      r.arrayBuffer(),
    );
    const other = await connect();
    if (other.instance !== first.instance) return [first, other];
    seen.push(other.instance);
  }
  throw new Error(`the balancer kept every session on one replica: ${seen.join(' ')}`);
}

async function read(client: Client, uri: string): Promise<Json> {
  const result = await client.readResource({ uri });
  return JSON.parse(String((result.contents[0] as { text: string }).text)) as Json;
}

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as Json;
  return result.structuredContent as Json;
}

/** Task ids the fleet's run records are bound to, read straight from Redis. */
async function boundTasks(): Promise<string[]> {
  const connection = await RedisConnection.connect({ url: redis.url });
  try {
    const keys = (await connection.command(['KEYS', 'agentd:run:*'])) as string[];
    const bound = await Promise.all(keys.map((key) => connection.command(['HGET', key, 'task'])));
    return bound
      .filter((json): json is string => typeof json === 'string')
      .map((json) => String((JSON.parse(json) as Json).taskId));
  } finally {
    await connection.close();
  }
}

/** Reads `get` until `done` holds; on timeout the error says `what` and the last value read. */
function eventually<T>(get: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await get();
      if (!done(value)) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: 20_000, interval: 50 },
  );
}

describe.runIf(runnable)('agentd replicas behind nginx, through Redis', () => {
  beforeAll(async () => {
    // Legacy sessions are sticky: each replica mints ids starting with `<instanceId>-`.
    fleet = await startReplicaFleet({
      ids: IDS,
      start: startReplica,
      hostOf: (r) => new URL(r.httpUrl as string).host,
    });
    ({ redis, nginx } = fleet);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await fleet?.close();
  });

  it('a subscription on one replica hears of a run that ends on another', async () => {
    const [watcher, spawner] = await twoReplicas();
    const updates: string[] = [];
    watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const started = await call(spawner.client, 'command_subagent.spawn', {
      instruction: 'sleep 700',
      async: true,
    });
    expect(started).toMatchObject({ state: 'running', instance: spawner.instance });
    const uri = `agent://subagent/${String(started.handle)}`;
    // The watcher's replica does not run it, and still answers for it and lets it be watched.
    expect(await read(watcher.client, uri)).toMatchObject({ state: 'running', instance: spawner.instance });
    await watcher.client.subscribeResource({ uri });
    await eventually(
      async () => updates,
      (u) => u.includes(uri),
      'the update',
    );
    expect(updates.filter((u) => u === uri)).toHaveLength(1);
    expect(await read(watcher.client, uri)).toMatchObject({ state: 'succeeded', output: 'slept 700 ms' });
    // Any replica answers subagent.status and agent://run/<id> for any run.
    expect(await call(watcher.client, 'query_subagent.status', { handle: started.handle })).toMatchObject({
      state: 'succeeded',
      instance: spawner.instance,
    });
    const run = await read(watcher.client, `agent://run/${String(started.runId)}`);
    expect(run).toMatchObject({ state: 'succeeded', runId: started.runId });
    expect(run.handle).toBeUndefined();
  });

  it('a spawn task created through one replica completes and is read through another', async () => {
    const [creator, reader] = await twoReplicas();
    const created = await creator.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'command_subagent.spawn',
          arguments: { instruction: 'sleep 400', async: true },
          task: { ttl: 60_000 },
        },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(created.task.status).toBe('working');
    const done = await eventually(
      () => reader.client.experimental.tasks.getTask(taskId),
      (t) => t.status !== 'working',
      'the task',
    );
    expect(done.status).toBe('completed');
    const result = await reader.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      state: 'succeeded',
      output: 'slept 400 ms',
      instance: creator.instance,
    });
  });

  it('a cancel through one replica stops the run another replica owns', async () => {
    const [canceller, owner] = await twoReplicas();
    const started = await call(owner.client, 'command_subagent.spawn', {
      instruction: 'sleep 30000',
      async: true,
    });
    const cancelled = await call(canceller.client, 'command_subagent.cancel', {
      handle: started.handle,
      reason: 'stop from elsewhere',
    });
    expect(cancelled).toMatchObject({
      state: 'cancelled',
      reason: 'stop from elsewhere',
      instance: owner.instance,
    });
    expect(await call(owner.client, 'query_subagent.status', { handle: started.handle })).toMatchObject({
      state: 'cancelled',
    });
  });

  it('the inventory shows the fleet: every replica, alive, with its live runs', async () => {
    const { client } = await connect();
    const started = await call(client, 'command_subagent.spawn', { instruction: 'sleep 1500', async: true });
    const inventory = await read(client, 'agent://inventory');
    const fleet = inventory.fleet as Json;
    const instances = fleet.instances as Json[];
    expect(instances.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(instances.every((i) => i.alive === true)).toBe(true);
    expect(instances.find((i) => i.id === started.instance)?.runs).toContain(started.handle);
    // The operator CLI shows the same fleet, from any replica.
    const socket = (replicas.get('b') as Agentd).socket;
    const runs = await runCli(['runs', '--socket', socket]);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain('fleet (3 instances)');
    expect(runs.stdout).toMatch(/^b \(this\) +alive/m);
    await call(client, 'command_subagent.cancel', { handle: started.handle });
  });

  it('Redis restarted mid-stream: replicas reconnect, records come back, later updates arrive', async () => {
    const [watcher, spawner] = await twoReplicas();
    const updates: string[] = [];
    watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const done = await call(spawner.client, 'command_subagent.spawn', { instruction: 'echo before' });
    const started = await call(spawner.client, 'command_subagent.spawn', {
      instruction: 'sleep 3000',
      async: true,
    });
    const uri = `agent://subagent/${String(started.handle)}`;
    await watcher.client.subscribeResource({ uri });
    const since = new Map([...replicas].map(([id, r]) => [id, r.logs.length]));
    await redis.restart();
    for (const [id, replica] of replicas) {
      await replica.waitForLog((l) => l.msg === 'redis pub/sub connection restored', {
        since: since.get(id) ?? 0,
      });
    }
    // The empty Redis is refilled by the owners: the finished run reads again from anywhere.
    expect(
      await eventually(
        () =>
          // While that replica is still reconnecting the answer is an error (thrown or isError).
          call(watcher.client, 'query_subagent.status', { handle: done.handle }).then(
            (s) => s ?? {},
            () => ({}) as Json,
          ),
        (s) => s.state === 'succeeded',
        'the finished run after the restart',
      ),
    ).toMatchObject({ output: 'before' });
    await eventually(
      async () => updates,
      (u) => u.includes(uri),
      'the update after the restart',
    );
    expect(await read(watcher.client, uri)).toMatchObject({ state: 'succeeded' });
  });

  // Last: the fleet is one replica short afterwards.
  it('a replica killed mid-run: what finished stays readable, its unfinished runs become lost', async () => {
    const [survivor, doomed] = await twoReplicas();
    const finished = await call(doomed.client, 'command_subagent.spawn', { instruction: 'uppercase kept' });
    expect(finished).toMatchObject({ state: 'succeeded', output: 'KEPT' });
    const running = await call(doomed.client, 'command_subagent.spawn', {
      instruction: 'sleep 30000',
      async: true,
    });
    // A spawn task too: the shared task store holds it, so its failure must be said there.
    const created = await doomed.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'command_subagent.spawn',
          arguments: { instruction: 'sleep 30000', async: true },
          task: { ttl: 600_000 },
        },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    // The task answers before its run starts: kill only once the run is in Redis, bound to it.
    await eventually(
      () => boundTasks(),
      (bound) => bound.includes(taskId),
      'the spawn task bound to its run',
    );
    // A subscriber elsewhere hears of the loss: no owner is left to say it, the sweeper does.
    const updates: string[] = [];
    survivor.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const uri = `agent://subagent/${String(running.handle)}`;
    await survivor.client.subscribeResource({ uri });
    const victim = replicas.get(doomed.instance) as Agentd;
    victim.proc.kill('SIGKILL');
    await victim.exited;
    replicas.delete(doomed.instance);
    // The doomed client's session died with its replica; a client retries through the balancer.
    await expect(call(doomed.client, 'query_subagent.status', { handle: finished.handle })).rejects.toThrow();
    const retry = await connect();
    expect(retry.instance).not.toBe(doomed.instance);
    expect(await call(retry.client, 'query_subagent.status', { handle: finished.handle })).toMatchObject({
      state: 'succeeded',
      output: 'KEPT',
      instance: doomed.instance,
    });
    const lost = await eventually(
      () => call(survivor.client, 'query_subagent.status', { handle: running.handle }),
      (s) => s.state === 'lost',
      'the orphaned run',
    );
    expect(lost).toMatchObject({ terminal: true, error: { code: 'lost' }, instance: doomed.instance });
    await eventually(
      async () => updates,
      (u) => u.includes(uri),
      'the lost notification',
    );
    // The spawn task failed with the reason, read through any replica (not `working` until its TTL).
    for (const reader of [survivor.client, retry.client]) {
      const task = await eventually(
        () => reader.experimental.tasks.getTask(taskId),
        (t) => t.status !== 'working',
        "the lost run's task",
      );
      expect(task.status).toBe('failed');
      expect(task.statusMessage).toContain(`instance ${doomed.instance} stopped renewing its lease`);
      await expect(reader.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toThrow(
        /was lost/,
      );
    }
    const fleet = (await read(survivor.client, 'agent://inventory')).fleet as Json;
    expect((fleet.instances as Json[]).map((i) => i.id)).not.toContain(doomed.instance);
    // Marked once: one survivor swept it.
    const sweeps = [...replicas.values()].flatMap((r) =>
      r.logs.filter(
        (l) =>
          l.msg === 'instance lease expired; its unfinished runs are lost' && l.instance === doomed.instance,
      ),
    );
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]).toMatchObject({ lost: 2 });
  });
});

describe('the cluster block in config check and --help', () => {
  it('accepts a valid block, names every bad key, and documents the flags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-cluster-check-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ cluster: { redisUrl: 'redis://redis:6379', leaseTtlMs: 2000 } }));
    expect((await runCli(['config', 'check', good])).code).toBe(0);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ cluster: { redisUrl: 'http://x', leaseTtl: 5, instanceId: 'a b' } }));
    const result = await runCli(['config', 'check', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/cluster/leaseTtl: unknown key 'leaseTtl'");
    expect(result.stderr).toContain('/cluster/redisUrl');
    expect(result.stderr).toContain('/cluster/instanceId');
    const help = await runCli(['serve', '--help']);
    for (const flag of ['--redis-url', '--instance-id', '--lease-ttl-ms'])
      expect(help.stdout).toContain(flag);
  });
});

describe('a replica whose Redis cannot be reached', () => {
  it('does not start: exit 1, saying which setting points where', async () => {
    const port = await freePort();
    const result = await runCli(
      ['--serve', 'http://127.0.0.1:0', '--no-watch'],
      cleanEnv({ AGENTD_REDIS_URL: `redis://127.0.0.1:${port}` }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach Redis (cluster.redisUrl)');
  });
});
