/** A modern input_required round records each request put to the client as a CLIENT child span. */
import { type JsonObject, silentLogger } from '@agentd/rpc-frame';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { makeContext, rpc } from './test-support/request-context.js';

const spans = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
});
afterAll(() => {
  trace.disable();
  context.disable();
});

it('puts one elicitation/create CLIENT span under the request span', async () => {
  const d = new Dispatcher({ logger: silentLogger, requestState: { key: 'k'.repeat(32), ttlMs: 60_000 } });
  d.registerTool({
    name: 'ask',
    description: 'asks once',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        { key: 'who' },
      );
      return String((answer.content as JsonObject).name);
    },
  });
  const result = await trace.getTracer('test').startActiveSpan('tools/call ask', async (span) => {
    const value = await d.handle(
      rpc('tools/call', { name: 'ask', arguments: {} }),
      makeContext({ era: 'modern', capabilities: { elicitation: {} } }),
    );
    span.end();
    return value;
  });
  expect(result.resultType).toBe('input_required');
  const finished = spans.getFinishedSpans();
  const request = finished.find((span) => span.name === 'tools/call ask');
  const asked = finished.find((span) => span.name === 'elicitation/create');
  expect(asked?.kind).toBe(SpanKind.CLIENT);
  expect(asked?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
  expect(asked?.attributes).toMatchObject({
    'mcp.method.name': 'elicitation/create',
    'mcp.input.key': 'who',
  });
});
