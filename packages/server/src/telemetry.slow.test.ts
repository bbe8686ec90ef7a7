/** Request spans and the duration metric with a real OTel SDK, over a real unix socket. */

import { JsonRpcErrorCode, WireError } from '@agentd/rpc-frame';
import { memoryLogger, modernMeta, type NdjsonClient } from '@agentd/test-support';
import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Handler } from './handler.js';
import { createServerCore } from './server-core.js';
import { MCP_DURATION_BUCKETS } from './telemetry.js';
import { type SocketServer, startSocketServer } from './test-support/socket-server.js';

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  await meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
});

const inner = trace.getTracer('handler-under-test');
const handler: Handler = {
  capabilities: () => ({ tools: {} }),
  async handle(request, ctx) {
    const name = request.params?.name;
    if (request.method !== 'tools/call')
      throw new WireError(JsonRpcErrorCode.MethodNotFound, 'Method not found');
    if (name === 'fail') throw new WireError(JsonRpcErrorCode.InvalidParams, 'Invalid params: no');
    if (name === 'broken') return { content: [], isError: true };
    if (name === 'ask') {
      const answer = await ctx.sendRequest?.('sampling/createMessage', { messages: [] });
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    }
    // The handler's own span nests under the request span.
    return inner.startActiveSpan('handler work', async (span) => {
      await new Promise((resolve) => setImmediate(resolve));
      span.end();
      return { content: [{ type: 'text', text: 'ok' }] };
    });
  },
};

let server: SocketServer;
let client: NdjsonClient;
beforeEach(async () => {
  spans.reset();
  const core = createServerCore({ handler, serverInfo: { name: 't', version: '1' }, logger: memoryLogger() });
  server = await startSocketServer(core);
  client = await server.connect();
});
afterEach(async () => {
  await server.close();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

function finished(name: string): Promise<ReadableSpan> {
  return vi.waitFor(
    () => {
      const span = spans.getFinishedSpans().find((candidate) => candidate.name === name);
      if (span === undefined) throw new Error(`no span ${name} yet`);
      return span;
    },
    { timeout: 10_000 },
  );
}

describe('request spans', () => {
  it('names a tool call by the conventions, parents it on _meta traceparent and nests handler spans', async () => {
    const meta = modernMeta({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, baggage: 'user=alice' });
    const response = await client.request('tools/call', { name: 'echo', arguments: {}, _meta: meta }, 7);
    expect(response.error).toBeUndefined();
    const span = await finished('tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'unix',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const work = await finished('handler work');
    expect(work.spanContext().traceId).toBe(TRACE_ID);
    expect(work.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it('records JSON-RPC errors and isError results as error.type with an ERROR status', async () => {
    await client.request('tools/call', { name: 'fail', arguments: {}, _meta: modernMeta() });
    await client.request('tools/call', { name: 'broken', arguments: {}, _meta: modernMeta() });
    const failed = await finished('tools/call fail');
    expect(failed.attributes['error.type']).toBe(String(JsonRpcErrorCode.InvalidParams));
    expect(failed.attributes['rpc.response.status_code']).toBe(String(JsonRpcErrorCode.InvalidParams));
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Invalid params: no' });
    const broken = await finished('tools/call broken');
    expect(broken.attributes['error.type']).toBe('tool_error');
    expect(broken.status.code).toBe(SpanStatusCode.ERROR);
    // Without a traceparent the request starts its own trace.
    expect(broken.parentSpanContext).toBeUndefined();
  });

  it('traces lifecycle answers and a legacy session, with its sampling request as a CLIENT child span', async () => {
    await client.initialize('2025-11-25', { sampling: {} });
    client.notify('notifications/initialized');
    const pending = client.request('tools/call', { name: 'ask', arguments: {} }, 'ask-1');
    const asked = await vi.waitFor(
      () => {
        const message = client.messages.find((m) => m.method === 'sampling/createMessage');
        if (message === undefined) throw new Error('not asked yet');
        return message;
      },
      { timeout: 10_000 },
    );
    // The sub-request carries the CLIENT span's context in its _meta.
    const traceparent = (asked.params as { _meta?: { traceparent?: string } })._meta?.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    client.send({
      jsonrpc: '2.0',
      id: asked.id,
      result: { role: 'assistant', content: { type: 'text', text: 'hi' } },
    });
    expect((await pending).error).toBeUndefined();
    const init = await finished('initialize');
    expect(init.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'mcp.protocol.version': '2025-11-25',
    });
    const call = await finished('tools/call ask');
    expect(call.attributes['mcp.session.id']).toEqual(expect.any(String));
    const sampling = await finished('sampling/createMessage');
    expect(sampling.kind).toBe(SpanKind.CLIENT);
    expect(sampling.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(traceparent).toContain(sampling.spanContext().spanId);
  });

  it('names stdio pipe and HTTP tcp, with the HTTP traceparent carrier as parent and the client address', async () => {
    const core = createServerCore({
      handler,
      serverInfo: { name: 't', version: '1' },
      logger: memoryLogger(),
    });
    const writer = { id: 'w', closed: false, write: () => true, close: () => {} };
    const stdio = core.openConnection(
      { origin: 'stdio', connectionId: 'p', transport: 'stdio', attributes: {} },
      writer,
    );
    await stdio.handle({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'broken' } },
    });
    const piped = await finished('tools/call broken');
    expect(piped.attributes['network.transport']).toBe('pipe');
    const http = core.openConnection(
      {
        origin: 'anonymous',
        connectionId: 'h',
        transport: 'http',
        attributes: { remoteAddress: '127.0.0.1' },
      },
      writer,
    );
    await http.handle(
      { kind: 'request', message: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fail' } } },
      { traceCarrier: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } },
    );
    const overHttp = await finished('tools/call fail');
    expect(overHttp.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(overHttp.attributes).toMatchObject({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'client.address': '127.0.0.1',
    });
    await core.close();
  });

  it('records mcp.server.operation.duration in seconds with the conventions buckets', async () => {
    await client.request('tools/call', { name: 'echo', arguments: {}, _meta: modernMeta() });
    await client.request('tools/call', { name: 'fail', arguments: {}, _meta: modernMeta() });
    await reader.forceFlush();
    const metric = metricExporter
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics)
      .flatMap((scope) => scope.metrics)
      .find((candidate) => candidate.descriptor.name === 'mcp.server.operation.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const points = metric?.dataPoints ?? [];
    const failed = points.find(
      (point) => point.attributes['error.type'] === String(JsonRpcErrorCode.InvalidParams),
    );
    expect(failed?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'fail' });
    const value = failed?.value as { buckets: { boundaries: number[] }; count: number };
    expect(value.buckets.boundaries).toEqual(MCP_DURATION_BUCKETS);
    expect(value.count).toBeGreaterThanOrEqual(1);
  });
});
