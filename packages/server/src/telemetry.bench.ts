/**
 * Benchmark: the cost of the request spans. Pipelined tools/call requests over one unix socket,
 * first with no OTel SDK registered (the api's no-op), then with an SDK registered that samples
 * everything out, then with an SDK that records every span and the duration histogram into
 * memory (batched, as an exporter would). Printed as calls/s and ratios to the no-SDK run, from the best round of each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { context, metrics, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, bench, describe } from 'vitest';
import type { Handler } from './handler.js';
import { silentLogger } from './logger.js';
import { serveConnection } from './serve-connection.js';
import { createServerCore } from './server-core.js';

const BATCH = 1_000;
const RESULT = { content: [{ type: 'text', text: 'ok' }] };
const dir = mkdtempSync(join(tmpdir(), 'agentd-otel-bench-'));
const handler: Handler = { capabilities: () => ({ tools: {} }), handle: async () => RESULT };
const core = createServerCore({ handler, serverInfo: { name: 'bench', version: '0' }, logger: silentLogger });
const server = net.createServer({ allowHalfOpen: true }, (socket) => serveConnection(socket, 'management', core));
const path = join(dir, 'otel.sock');
await new Promise<void>((resolve) => server.listen(path, resolve));

const socket = net.connect(path);
await new Promise((resolve) => socket.once('connect', resolve));
let nextId = 0;
let waiting = 0;
let done: () => void = () => {};
socket.on('data', (chunk: Buffer) => {
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) waiting -= 1;
  if (waiting === 0) done();
});
function round(): Promise<void> {
  let text = '';
  for (let i = 0; i < BATCH; i += 1) {
    nextId += 1;
    text += `{"jsonrpc":"2.0","id":${nextId},"method":"tools/call","params":{"name":"echo","arguments":{}}}\n`;
  }
  return new Promise<void>((resolve) => {
    waiting = BATCH;
    done = resolve;
    socket.write(text);
  });
}

// The api's ProxyTracer keeps the first delegate it finds, so the SDK modes share one registered
// provider that forwards to the mode's own SDK provider.
const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
const spans = new InMemorySpanExporter();
const recording = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(0),
  exportIntervalMillis: 3_600_000,
});
const meters = new MeterProvider({ readers: [reader] });
let active: TracerProvider = sampledOut;
const switching: TracerProvider = {
  getTracer: (name, version, options): Tracer => ({
    startSpan: (...args) => active.getTracer(name, version, options).startSpan(...args),
    startActiveSpan: ((...args: Parameters<Tracer['startActiveSpan']>) =>
      (active.getTracer(name, version, options).startActiveSpan as (...a: unknown[]) => unknown)(
        ...args,
      )) as Tracer['startActiveSpan'],
  }),
};
let registered = false;
function useSdk(mode: 'sampled-out' | 'recording'): void {
  if (!registered) {
    registered = true;
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(switching);
  }
  active = mode === 'recording' ? recording : sampledOut;
  metrics.disable();
  if (mode === 'recording') metrics.setGlobalMeterProvider(meters);
}

const best = { none: Number.POSITIVE_INFINITY, off: Number.POSITIVE_INFINITY, on: Number.POSITIVE_INFINITY };
async function timed(key: keyof typeof best): Promise<void> {
  const started = performance.now();
  await round();
  best[key] = Math.min(best[key], performance.now() - started);
  if (key === 'on') spans.reset();
}
const options = { time: 1_000, warmupTime: 200 };

describe(`${BATCH} pipelined tools/call requests over one unix socket`, () => {
  bench('no OTel SDK registered', () => timed('none'), options);
  bench('SDK registered, every span sampled out', () => timed('off'), {
    ...options,
    setup: () => useSdk('sampled-out'),
  });
  bench('SDK recording spans and the duration histogram (in memory)', () => timed('on'), {
    ...options,
    setup: () => useSdk('recording'),
  });
});

afterAll(async () => {
  const rate = (ms: number): string => `${Math.round((BATCH / ms) * 1000)} calls/s`;
  console.log(
    `request spans, ${BATCH} pipelined tools/call: no SDK ${rate(best.none)}; ` +
      `SDK sampled out ${rate(best.off)} (${(best.none / best.off).toFixed(2)}x of no SDK); ` +
      `SDK recording ${rate(best.on)} (${(best.none / best.on).toFixed(2)}x of no SDK)`,
  );
  socket.destroy();
  await core.close();
  server.close();
  await meters.shutdown();
  rmSync(dir, { recursive: true, force: true });
});
