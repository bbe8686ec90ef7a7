/**
 * End to end: agentd exports OpenTelemetry by the standard OTEL_* variables (or the `telemetry`
 * block) to a real OTLP/HTTP receiver, in both encodings; spans cross unix, HTTP and a spawned run.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { modernMeta, NdjsonClient } from '@agentd/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startAgentd } from './support/agentd-process.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const SERVER = 2;
// The run prints the trace context it was started with.
const TRACER_AGENT = { mode: 'plain', command: '/bin/sh', args: ['-c', 'echo "tp=$TRACEPARENT"'] };

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function spanNamed(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const span = spans.find((candidate) => candidate.name === name);
  if (span === undefined) throw new Error(`no span '${name}' in ${JSON.stringify(spans.map((s) => s.name))}`);
  return span;
}

describe('OpenTelemetry export', () => {
  it('http/protobuf by OTEL_* variables: a unix tools/call and the run it spawns share one trace', async () => {
    receiver = await startOtlpReceiver();
    const agentd = await startAgentd({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_SERVICE_NAME: 'agentd-e2e',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
      },
      config: { agents: { tracer: TRACER_AGENT } },
    });
    let output: string;
    let handle: string;
    let runId: string;
    try {
      const client = await NdjsonClient.connect(agentd.socket);
      const code = "return await agentd.subagent.spawn({ agent: 'tracer', instruction: 'go' });";
      const response = await client.request('tools/call', {
        name: 'execute',
        arguments: { code },
        _meta: modernMeta({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` }),
      });
      const result = response.result as {
        structuredContent: { result: { output: string; handle: string; runId: string } };
      };
      ({ output, handle, runId } = result.structuredContent.result);
      // A read by handle: the request span names the resource, and must not carry the handle.
      await client.request('resources/read', { uri: `agent://subagent/${handle}`, _meta: modernMeta() });
      client.end();
    } finally {
      // Shutdown flushes the batch processor and the metric reader.
      await agentd.stop();
    }
    const spans = receiver.spans;
    const call = spanNamed(spans, 'tools/call execute');
    expect(call).toMatchObject({
      traceId: TRACE_ID,
      parentSpanId: PARENT_ID,
      kind: SERVER,
      service: 'agentd-e2e',
      encoding: 'protobuf',
    });
    expect(call.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'execute',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'unix',
      'server.address': agentd.socket,
    });
    // Code Mode's operation call is a child of the request span.
    const operation = spans.find(
      (span) => span.name.startsWith('execute_tool ') && span.name.includes('spawn'),
    );
    expect(operation?.parentSpanId).toBe(call.spanId);
    expect(operation?.traceId).toBe(TRACE_ID);
    // The run is an invoke_agent span under the operation call, and its child got that span as TRACEPARENT.
    const run = spanNamed(spans, 'invoke_agent tracer');
    expect(run.parentSpanId).toBe(operation?.spanId);
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': runId,
      'agentd.run.state': 'succeeded',
    });
    // Only names leave the machine: never the handle (a capability), never the run's output.
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain(handle);
    expect(exported).not.toContain('tp=00-');
    expect(spanNamed(spans, 'resources/read').attributes).toMatchObject({
      'mcp.resource.uri': 'agent://subagent/{handle}',
    });
    const childParent = /tp=00-([0-9a-f]{32})-([0-9a-f]{16})-01/.exec(output);
    expect(childParent?.[1]).toBe(TRACE_ID);
    expect(childParent?.[2]).toBe(run.spanId);
    expect(receiver.metrics).toContainEqual({ name: 'mcp.server.operation.duration', encoding: 'protobuf' });
  });

  it('http/json by the README telemetry block: an HTTP request is parented on its traceparent header', async () => {
    receiver = await startOtlpReceiver();
    // The README's example block, pointed at this receiver.
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const block = /```json\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## OpenTelemetry')))?.[1];
    const config = JSON.parse(block as string) as { telemetry: { endpoint: string } };
    expect(config.telemetry).toMatchObject({ protocol: 'http/json', serviceName: 'agentd-json' });
    config.telemetry.endpoint = receiver.endpoint;
    const agentd = await startAgentd({ http: true, config });
    let sessionId: string | null = null;
    try {
      const post = await fetch(agentd.httpUrl as string, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'e2e', version: '1' },
          },
        }),
      });
      expect(post.status).toBe(200);
      sessionId = post.headers.get('mcp-session-id');
      await post.text();
    } finally {
      await agentd.stop();
    }
    const initialize = await vi.waitFor(() => spanNamed(receiver?.spans ?? [], 'initialize'));
    expect(initialize).toMatchObject({
      traceId: TRACE_ID,
      parentSpanId: PARENT_ID,
      kind: SERVER,
      service: 'agentd-json',
      encoding: 'json',
    });
    expect(initialize.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'client.address': expect.stringMatching(/127\.0\.0\.1/),
      'jsonrpc.request.id': '1',
      'mcp.session.id': sessionId,
    });
    expect(sessionId).toEqual(expect.any(String));
    expect(receiver.metrics).toEqual([]);
  });
});
