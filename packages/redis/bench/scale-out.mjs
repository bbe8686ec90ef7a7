/**
 * Scale-out benchmark, one run, ratios: (1) cross-replica notification latency p50/p99, the Redis
 * bus (two connections, as two replicas) against the in-process hub; (2) stateless 2026-07-28
 * tools/call throughput through nginx with 1 and with 3 replica processes, and one replica
 * direct as the floor. Real redis-server and nginx from the cluster harness.
 * Every replica is warmed up first; the three setups are interleaved for `--rounds`, best kept.
 * Usage: node bench/scale-out.mjs [--events N] [--requests N] [--concurrency C] [--rounds R]
 * (after `turbo run build`)
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { clusterBinariesAvailable, startNginx, startRedisServer } from '@agentd/cluster-harness';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';
import { RedisConnection, RedisEventBus } from '@agentd/redis';
import { MemoryEventHub, SubscriptionRegistry } from '@agentd/subscriptions';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '6000' },
    concurrency: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '2' },
  },
});
const EVENTS = Number(values.events);
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const REPLICA = fileURLToPath(new URL('../src/test-support/replica.mjs', import.meta.url));

if (!clusterBinariesAvailable('scale-out bench', ['redis-server', 'nginx'])) process.exit(0);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Raise on A, time until B's writer has it; one event in flight at a time. */
async function busLatency(busA, busB) {
  const a = new SubscriptionRegistry({ bus: busA });
  const b = new SubscriptionRegistry({ bus: busB });
  let delivered = () => {};
  b.register('bench', 'bench://latency', {
    id: 'bench-writer',
    closed: false,
    write() {
      delivered();
      return true;
    },
    close() {},
  });
  const samples = [];
  for (let i = 0; i < EVENTS + 200; i++) {
    const arrived = new Promise((resolve) => {
      delivered = resolve;
    });
    const start = process.hrtime.bigint();
    a.notifyUpdatedKeep('bench://latency');
    await arrived;
    if (i >= 200) samples.push(Number(process.hrtime.bigint() - start) / 1e3); // µs, after warm-up
  }
  a.leaveBus();
  b.leaveBus();
  samples.sort((x, y) => x - y);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

function startReplica(redisUrl, name) {
  const child = spawn(process.execPath, [REPLICA], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, REDIS_URL: redisUrl, NAME: name },
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, ...JSON.parse(line) }));
    child.once('exit', (code) => reject(new Error(`replica ${name} exited with ${code}`)));
  });
}

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'whoami',
    arguments: {},
    _meta: { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {} },
  },
});

/** Closed loop: CONCURRENCY requests in flight over keep-alive sockets; requests per second. */
async function throughput(port, count = REQUESTS) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': 'whoami',
    host: `127.0.0.1:${port}`,
  };
  const one = () =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () =>
            res.statusCode === 200 && text.includes('"result"') ? resolve() : reject(new Error(text)),
          );
        },
      );
      req.once('error', reject);
      req.end(BODY);
    });
  const run = async (count) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < count) await one();
      }),
    );
  };
  await run(Math.min(200, count)); // this agent's sockets
  const start = process.hrtime.bigint();
  await run(count);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  return count / seconds;
}

const redis = await startRedisServer();
const stops = [];
try {
  const hub = new MemoryEventHub();
  const memory = await busLatency(hub.member(), hub.member());
  const [ca, cb] = await Promise.all([
    RedisConnection.connect({ url: redis.url }),
    RedisConnection.connect({ url: redis.url }),
  ]);
  const [busA, busB] = await Promise.all([RedisEventBus.create(ca), RedisEventBus.create(cb)]);
  const overRedis = await busLatency(busA, busB);
  await Promise.all([busA.close(), busB.close()]);
  await Promise.all([ca.close(), cb.close()]);

  const replicas = await Promise.all(['r1', 'r2', 'r3'].map((name) => startReplica(redis.url, name)));
  const stopReplica = (r) =>
    new Promise((done) => {
      r.child.once('exit', done);
      r.child.kill();
    });
  stops.push(() => Promise.all(replicas.map(stopReplica)));
  for (const replica of replicas) await throughput(replica.port, Math.max(1000, REQUESTS / 3)); // JIT warm-up
  const one = await startNginx({ replicas: [`127.0.0.1:${replicas[0].port}`] });
  stops.push(() => one.close());
  const three = await startNginx({ replicas: replicas.map((r) => `127.0.0.1:${r.port}`) });
  stops.push(() => three.close());
  let direct = 0;
  let viaOne = 0;
  let viaThree = 0;
  for (let round = 0; round < ROUNDS; round++) {
    direct = Math.max(direct, await throughput(replicas[0].port));
    viaOne = Math.max(viaOne, await throughput(one.port));
    viaThree = Math.max(viaThree, await throughput(three.port));
  }

  const fmt = (n) => n.toFixed(0);
  console.log(`cross-replica notification latency (${EVENTS} events, one in flight), µs:`);
  console.log(`  in-process hub   p50 ${fmt(memory.p50)}  p99 ${fmt(memory.p99)}`);
  console.log(`  Redis pub/sub    p50 ${fmt(overRedis.p50)}  p99 ${fmt(overRedis.p99)}`);
  console.log(
    `  ratio Redis/hub  p50 ${(overRedis.p50 / memory.p50).toFixed(1)}x  p99 ${(overRedis.p99 / memory.p99).toFixed(1)}x`,
  );
  console.log(`stateless tools/call throughput (${REQUESTS} requests, ${CONCURRENCY} in flight), req/s:`);
  console.log(`  1 replica direct       ${fmt(direct)}`);
  console.log(`  nginx → 1 replica      ${fmt(viaOne)}  (${(viaOne / direct).toFixed(2)}x direct)`);
  console.log(
    `  nginx → 3 replicas     ${fmt(viaThree)}  (${(viaThree / viaOne).toFixed(2)}x one replica behind nginx)`,
  );
} finally {
  for (const stop of stops.reverse()) await stop();
  await redis.close();
}
