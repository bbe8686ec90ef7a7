/** Each host call of an execution is a child span of the caller's span (real workers, real SDK). */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CodeModeRunner } from './code-mode-runner.js';
import { catalogueBridge, OPERATIONS } from './test-support/catalogue.js';

const spans = new InMemorySpanExporter();
const runner = new CodeModeRunner({ workers: 1, limits: { cpuMs: 2_000, wallMs: 20_000 } });
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
});
afterAll(async () => {
  await runner.close();
  trace.disable();
  context.disable();
});

test('host calls become execute_tool spans under the request span', async () => {
  const bridge = catalogueBridge();
  const outer = trace.getTracer('test');
  const outcome = await outer.startActiveSpan('tools/call execute', async (span) => {
    const result = await runner.execute({
      code: `const all = await agentd.query('GetAllServers', {});
             return await agentd.query('servers.get', { id: all.items[0].id });`,
      namespace: 'agentd',
      operations: OPERATIONS,
      call: bridge.call,
    });
    span.end();
    return result;
  });
  expect(outcome).toMatchObject({ ok: true });
  const finished = spans.getFinishedSpans();
  const request = finished.find((span) => span.name === 'tools/call execute');
  const calls = finished.filter((span) => span.name.startsWith('execute_tool '));
  expect(calls.map((span) => span.name)).toEqual([
    'execute_tool query_GetAllServers',
    'execute_tool query_servers.get',
  ]);
  for (const call of calls) {
    expect(call.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool' });
  }
});
