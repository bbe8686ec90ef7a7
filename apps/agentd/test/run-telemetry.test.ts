/**
 * End to end: what runs of a real ACP agent (the SDK-written test agent) did reaches OpenTelemetry
 * (a tool call span under the run's invoke_agent span, gen_ai.usage.* on it, token and cost
 * metrics) at a real OTLP receiver, and Prometheus (per agent tokens, cost, tool calls,
 * permission decisions, budget stops) on /metrics.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NdjsonClient } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { acpTestProfile } from '../src/supervisor/test-support/acp-test-agent.js';
import { startAgentd } from './support/agentd-process.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver.js';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** One sample's value from the Prometheus text, e.g. `agentd_tokens_total{agent="a",type="input"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function only(spans: readonly ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(predicate);
  if (found.length !== 1)
    throw new Error(`expected one span, got ${JSON.stringify(found.map((s) => s.name))}`);
  return found[0] as ReceivedSpan;
}

describe('run telemetry of a real ACP agent', () => {
  it('exports tool call spans and usage to OTLP, and per agent counters to /metrics', async () => {
    receiver = await startOtlpReceiver();
    const cwd = mkdtempSync(join(tmpdir(), 'agentd-run-telemetry-'));
    // Profiles as JSON: the test agent's path and node's, one allowing edits, one denying them.
    const profile = (name: string, extra: Record<string, unknown>) => {
      const { command, args } = acpTestProfile(name);
      return { mode: 'acp', command, args, cwd, allowFileSystem: true, ...extra };
    };
    const agentd = await startAgentd({
      args: ['--metrics', 'http://127.0.0.1:0'],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
      },
      config: {
        agents: {
          writer: profile('writer', { permissions: { allow: ['edit'] } }),
          guarded: profile('guarded', { permissions: { deny: ['edit'] } }),
          frugal: profile('frugal', { budget: { maxCostUsd: 0.1 } }),
        },
      },
    });
    const url = /metrics: (\S+)/.exec(agentd.stdout.join(''))?.[1] as string;
    const runIds: Record<string, string> = {};
    let metricsText: string;
    try {
      const client = await NdjsonClient.connect(agentd.socket);
      const spawn = async (key: string, agent: string, instruction: string) => {
        const code = `return await agentd.subagent.spawn(${JSON.stringify({ agent, instruction, warm: false })});`;
        const result = await client.modernResult('tools/call', { name: 'execute', arguments: { code } });
        const run = (
          result.structuredContent as { result: { runId: string; state: string; error?: { code?: string } } }
        ).result;
        runIds[key] = run.runId;
        return run;
      };
      const out = join(cwd, 'out.txt');
      expect(await spawn('written', 'writer', `tool ${out} secret-content`)).toMatchObject({
        state: 'succeeded',
      });
      expect(existsSync(out)).toBe(true);
      const refused = join(cwd, 'refused.txt');
      expect(await spawn('refused', 'guarded', `tool ${refused} secret-content`)).toMatchObject({
        state: 'succeeded',
      });
      expect(existsSync(refused)).toBe(false);
      expect(await spawn('usage', 'writer', 'usage')).toMatchObject({ state: 'succeeded' });
      const over = await spawn('over', 'frugal', 'usage');
      expect(over).toMatchObject({ state: 'failed', error: { code: 'budget_exceeded' } });
      client.end();
      metricsText = await (await fetch(url)).text();
    } finally {
      await agentd.stop();
    }

    // Prometheus, per agent: every value is what the agent did.
    const m = (series: string) => sample(metricsText, series);
    expect(m('agentd_tool_calls_total{agent="writer",kind="edit",status="completed"}')).toBe(1);
    expect(m('agentd_tool_calls_total{agent="guarded",kind="edit",status="failed"}')).toBe(1);
    expect(
      m('agentd_permission_decisions_total{agent="writer",outcome="allow_once",decided_by="policy"}'),
    ).toBe(1);
    expect(
      m('agentd_permission_decisions_total{agent="guarded",outcome="reject_once",decided_by="policy"}'),
    ).toBe(1);
    expect(m('agentd_tokens_total{agent="writer",type="input"}')).toBe(10);
    expect(m('agentd_tokens_total{agent="writer",type="output"}')).toBe(5);
    expect(m('agentd_tokens_total{agent="writer",type="cache_read"}')).toBe(2);
    expect(m('agentd_cost_usd_total{agent="writer"}')).toBe(0.25);
    expect(m('agentd_cost_usd_total{agent="frugal"}')).toBe(0.25);
    expect(m('agentd_runs_budget_exceeded_total{agent="frugal"}')).toBe(1);
    expect(m('agentd_runs_budget_exceeded_total{agent="writer"}')).toBeUndefined();

    // OpenTelemetry: the tool call is a child of its run's span, named, with no content.
    const spans = receiver.spans;
    const runSpan = (key: string) => only(spans, (s) => s.attributes['gen_ai.agent.id'] === runIds[key]);
    const written = runSpan('written');
    const tool = only(spans, (s) => s.name.startsWith('execute_tool') && s.parentSpanId === written.spanId);
    expect(tool.traceId).toBe(written.traceId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
      'agentd.tool.kind': 'edit',
      'agentd.tool.status': 'completed',
    });
    expect(tool.attributes['gen_ai.tool.name']).toBeTypeOf('string');
    expect(tool.attributes['error.type']).toBeUndefined();
    const refusedRun = runSpan('refused');
    const failedTool = only(
      spans,
      (s) => s.name.startsWith('execute_tool') && s.parentSpanId === refusedRun.spanId,
    );
    expect(failedTool.attributes).toMatchObject({
      'agentd.tool.status': 'failed',
      'error.type': 'tool_failed',
    });
    expect(runSpan('usage').attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 2,
      'gen_ai.usage.cache_creation.input_tokens': 0,
      'agentd.usage.cost_usd': 0.25,
    });
    expect(runSpan('over').attributes).toMatchObject({
      'agentd.run.state': 'failed',
      'agentd.usage.cost_usd': 0.25,
    });
    // The starter's content never leaves the machine: not the input, not the paths.
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain('secret-content');
    expect(exported).not.toContain(cwd);
    const names = receiver.metrics.map((metric) => metric.name);
    expect(names).toEqual(
      expect.arrayContaining(['gen_ai.client.token.usage', 'agentd.run.tokens', 'agentd.run.cost']),
    );
  });
});
