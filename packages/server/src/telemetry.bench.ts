/**
 * Benchmark: the cost of the request spans. Pipelined tools/call requests over one unix socket,
 * first with no OTel SDK registered (the api's no-op), then with only AsyncLocalStorage as the
 * context manager (what any SDK installs), then with an SDK registered that samples everything
 * out, then with an SDK that records every span and the duration histogram into memory (batched,
 * as an exporter would). Printed as calls/s and ratios to the no-SDK run, from
 * the best round of each (the benches, then ten alternating rounds).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  context,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
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
const server = net.createServer({ allowHalfOpen: true }, (socket) =>
  serveConnection(socket, 'management', core),
);
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

// The api's ProxyTracer keeps the first delegate it finds, so one registered provider forwards to
// the mode's own: none (the api's no-op tracer), sampled out, or recording. Modes alternate round
// by round, so load on a shared machine hits them alike.
type Mode = 'none' | 'als' | 'off' | 'on';
const noSdk = new ProxyTracerProvider();
const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
const spans = new InMemorySpanExporter();
const recording = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(0),
  exportIntervalMillis: 3_600_000,
});
const meters = new MeterProvider({ readers: [reader] });
let active: TracerProvider = noSdk;
const switching: TracerProvider = {
  getTracer: (name, version, options): Tracer => ({
    startSpan: (...args) => active.getTracer(name, version, options).startSpan(...args),
    startActiveSpan: ((...args: Parameters<Tracer['startActiveSpan']>) =>
      (active.getTracer(name, version, options).startActiveSpan as (...a: unknown[]) => unknown)(
        ...args,
      )) as Tracer['startActiveSpan'],
  }),
};
trace.setGlobalTracerProvider(switching);
const contextManager = new AsyncLocalStorageContextManager();
function use(mode: Mode): void {
  context.disable();
  if (mode !== 'none') context.setGlobalContextManager(contextManager.enable());
  active = mode === 'on' ? recording : mode === 'off' ? sampledOut : noSdk;
  metrics.disable();
  if (mode === 'on') metrics.setGlobalMeterProvider(meters);
}

const best: Record<Mode, number> = {
  none: Number.POSITIVE_INFINITY,
  als: Number.POSITIVE_INFINITY,
  off: Number.POSITIVE_INFINITY,
  on: Number.POSITIVE_INFINITY,
};
async function timed(mode: Mode): Promise<void> {
  use(mode);
  const started = performance.now();
  await round();
  best[mode] = Math.min(best[mode], performance.now() - started);
  if (mode === 'on') spans.reset();
}
const options = { time: 600, warmupTime: 200 };

describe(`${BATCH} pipelined tools/call requests over one unix socket`, () => {
  bench('no OTel SDK registered', () => timed('none'), options);
  bench('only a context manager (AsyncLocalStorage), no tracer provider', () => timed('als'), options);
  bench('SDK registered, every span sampled out', () => timed('off'), options);
  bench('SDK recording spans and the duration histogram (in memory, batched)', () => timed('on'), options);
});

afterAll(async () => {
  for (let i = 0; i < 10; i += 1) for (const mode of ['none', 'als', 'off', 'on'] as const) await timed(mode);
  const rate = (ms: number): string => `${Math.round((BATCH / ms) * 1000)} calls/s`;
  console.log(
    `request spans, ${BATCH} pipelined tools/call: no SDK ${rate(best.none)}; ` +
      `context manager only ${rate(best.als)} (${(best.none / best.als).toFixed(2)}x); ` +
      `SDK sampled out ${rate(best.off)} (${(best.none / best.off).toFixed(2)}x of no SDK); ` +
      `SDK recording ${rate(best.on)} (${(best.none / best.on).toFixed(2)}x of no SDK)`,
  );
  socket.destroy();
  await core.close();
  server.close();
  await meters.shutdown();
  rmSync(dir, { recursive: true, force: true });
});
