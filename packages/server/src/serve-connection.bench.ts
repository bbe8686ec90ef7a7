/** Benchmark: pipelined requests through serveConnection + ServerCore against a bare NDJSON echo server, same unix socket setup. */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, bench, describe } from 'vitest';
import type { Handler } from './handler.js';
import { silentLogger } from './logger.js';
import { serveConnection } from './serve-connection.js';
import { createServerCore } from './server-core.js';

const BATCH = 2_000;
const PAIRS = 10;
const TOOLS = { tools: [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object' } }] };
const dir = mkdtempSync(join(tmpdir(), 'agentd-bench-'));

const handler: Handler = { capabilities: () => ({ tools: {} }), handle: async () => TOOLS };
const core = createServerCore({ handler, serverInfo: { name: 'bench', version: '0' }, logger: silentLogger });

/** The engine: framing, classification, lifecycle, routing, concurrency bound, serialised writer. */
const engine = net.createServer({ allowHalfOpen: true }, (socket) =>
  serveConnection(socket, 'management', core),
);

/** The reference: split on newlines, JSON.parse, answer with JSON.stringify; no checks at all. */
const bare = net.createServer((socket) => {
  let carry = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (carry + chunk).split('\n');
    carry = lines.pop() ?? '';
    let out = '';
    for (const line of lines) {
      const { id } = JSON.parse(line) as { id: number };
      out += `${JSON.stringify({ jsonrpc: '2.0', id, result: TOOLS })}\n`;
    }
    socket.write(out);
  });
});

const enginePath = join(dir, 'engine.sock');
const barePath = join(dir, 'bare.sock');
await Promise.all([
  new Promise<void>((resolve) => engine.listen(enginePath, resolve)),
  new Promise<void>((resolve) => bare.listen(barePath, resolve)),
]);

/** A client that writes BATCH pipelined tools/list requests and resolves when all answers arrived. */
async function client(path: string): Promise<{ round: () => Promise<void>; close: () => void }> {
  const socket = net.connect(path);
  await new Promise((resolve) => socket.once('connect', resolve));
  let id = 0;
  const payload = (): string => {
    let text = '';
    for (let i = 0; i < BATCH; i += 1) {
      id += 1;
      text += `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}\n`;
    }
    return text;
  };
  let waiting = 0;
  let done: () => void = () => {};
  socket.on('data', (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) waiting -= 1;
    if (waiting === 0) done();
  });
  return {
    round: () =>
      new Promise<void>((resolve) => {
        waiting = BATCH;
        done = resolve;
        socket.write(payload());
      }),
    close: () => socket.destroy(),
  };
}

const engineClient = await client(enginePath);
const bareClient = await client(barePath);
const options = { time: 1_500, warmupTime: 300 };

describe(`${BATCH} pipelined tools/list requests over one unix socket`, () => {
  bench('bare NDJSON echo server (reference)', () => bareClient.round(), options);
  bench('serveConnection + ServerCore', () => engineClient.round(), options);
});

afterAll(async () => {
  // Alternate the two and compare best times (noise only adds time), with the median pair ratio.
  const ratios: number[] = [];
  let bestEngine = Number.POSITIVE_INFINITY;
  let bestBare = Number.POSITIVE_INFINITY;
  for (let i = 0; i < PAIRS; i += 1) {
    const started = performance.now();
    await engineClient.round();
    const engineMs = performance.now() - started;
    const middle = performance.now();
    await bareClient.round();
    const bareMs = performance.now() - middle;
    bestEngine = Math.min(bestEngine, engineMs);
    bestBare = Math.min(bestBare, bareMs);
    ratios.push(engineMs / bareMs);
  }
  ratios.sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
  console.log(
    `serveConnection + ServerCore vs bare NDJSON server, ${BATCH} pipelined requests: ` +
      `best-time ratio ${(bestEngine / bestBare).toFixed(2)}x, median pair ratio ${median.toFixed(2)}x ` +
      `(engine best ${bestEngine.toFixed(1)} ms, bare best ${bestBare.toFixed(1)} ms)`,
  );
  engineClient.close();
  bareClient.close();
  await core.close();
  engine.close();
  bare.close();
  rmSync(dir, { recursive: true, force: true });
});
