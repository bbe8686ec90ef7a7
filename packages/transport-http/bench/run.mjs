/**
 * Stateless tools/call benchmark: throughput and p50/p99 at 1 and 32 requests in flight, for
 * agentd's HTTP transport, the official SDK's Streamable HTTP server (stateless, per-request
 * pattern) and a bare node:http floor, each in its own child process, in the same run.
 * Usage: node bench/run.mjs [--requests N] [--rounds R]   (needs `turbo run build` first)
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MetaKey, MODERN_VERSION } from '@agentd/lifecycle';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '6000' }, rounds: { type: 'string', default: '2' } },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const SERVERS = fileURLToPath(new URL('./servers.mjs', import.meta.url));
const TARGETS = ['bare', 'agentd', 'sdk', 'sdk-json'];
const CONCURRENCY = [1, 32];

function startServer(kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVERS, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, port: JSON.parse(line).port });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function payload(kind, id) {
  const params = { name: 'echo', arguments: { text: `hello-${id}` } };
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    host: 'localhost',
  };
  if (kind === 'agentd') {
    // agentd serves stateless calls in the 2026-07-28 era: per-request _meta plus mirrored headers.
    params._meta = { [MetaKey.protocolVersion]: MODERN_VERSION, [MetaKey.clientCapabilities]: {} };
    Object.assign(headers, {
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    });
  }
  return { body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }), headers };
}

function call(port, agent, kind, id) {
  const { body, headers } = payload(kind, id);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          if (res.statusCode !== 200 || !text.includes(`hello-${id}`)) {
            reject(new Error(`${kind}: unexpected answer ${res.statusCode} ${text.slice(0, 200)}`));
            return;
          }
          resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(port, kind, inFlight, count) {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const latencies = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) latencies.push(await call(port, agent, kind, next++));
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: count / seconds, p50: at(0.5), p99: at(0.99) };
}

const results = {};
for (const kind of TARGETS) {
  const { child, port } = await startServer(kind);
  await measure(port, kind, 8, 1_000); // warm-up (JIT, sockets)
  for (const inFlight of CONCURRENCY) {
    let best;
    for (let round = 0; round < ROUNDS; round++) {
      const r = await measure(port, kind, inFlight, REQUESTS);
      if (best === undefined || r.rps > best.rps) best = r;
    }
    results[`${kind}@${inFlight}`] = best;
  }
  child.kill();
}

const fmt = (n, d = 0) => n.toFixed(d).padStart(9);
console.log(
  `\nstateless tools/call, ${REQUESTS} requests per round, best of ${ROUNDS} (node ${process.version})\n`,
);
console.log('target      in-flight      req/s    p50 ms    p99 ms');
for (const inFlight of CONCURRENCY) {
  for (const kind of TARGETS) {
    const r = results[`${kind}@${inFlight}`];
    console.log(
      `${kind.padEnd(10)} ${String(inFlight).padStart(10)} ${fmt(r.rps)} ${fmt(r.p50, 3)} ${fmt(r.p99, 3)}`,
    );
  }
}
console.log('\nratios (throughput: higher is better; latency: lower is better)');
for (const inFlight of CONCURRENCY) {
  const a = results[`agentd@${inFlight}`];
  const b = results[`bare@${inFlight}`];
  for (const reference of ['sdk', 'sdk-json']) {
    const s = results[`${reference}@${inFlight}`];
    console.log(
      `in-flight ${String(inFlight).padStart(2)}: agentd/${reference} throughput ${(a.rps / s.rps).toFixed(2)}x, p50 ${(a.p50 / s.p50).toFixed(2)}x, p99 ${(a.p99 / s.p99).toFixed(2)}x`,
    );
  }
  console.log(
    `in-flight ${String(inFlight).padStart(2)}: agentd/bare throughput ${((100 * a.rps) / b.rps).toFixed(0)}%`,
  );
}
