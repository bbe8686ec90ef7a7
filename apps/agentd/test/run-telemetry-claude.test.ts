/**
 * End to end, `claude` mode: the real Claude Code CLI against a scripted model, through a real
 * daemon. Its Write under an allowing policy is a tool call span under the run's span, its usage
 * lands on the run's span and in /metrics per agent, with the policy's decision counted.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NdjsonClient } from '@agentd/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { startAgentd } from './support/agentd-process.js';
import { claudeProfile, claudeTests } from './support/claude-cli.js';
import { type OtlpReceiver, startOtlpReceiver } from './support/otlp-receiver.js';
import { ScriptedModel } from './support/scripted-model.js';

const cli = claudeTests('apps/agentd claude run telemetry test');

let receiver: OtlpReceiver | undefined;
let model: ScriptedModel | undefined;
let root: string | undefined;
afterEach(async () => {
  await receiver?.close();
  await model?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  receiver = model = root = undefined;
});

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.skipIf(!cli.run)('run telemetry of the real Claude Code CLI', () => {
  it('exports its Write as a tool call span, its usage on the run span, and per agent counters', async () => {
    receiver = await startOtlpReceiver();
    model = await ScriptedModel.start();
    root = mkdtempSync(join(tmpdir(), 'agentd-claude-telemetry-'));
    const dir = join(root, 'work');
    const home = join(root, 'home');
    mkdirSync(dir);
    mkdirSync(home);
    const file = join(dir, 'hello.txt');
    const { name: _name, ...profile } = claudeProfile('coder', model.url, dir, home, {
      permissions: { allow: ['Write'] },
    });
    model.enqueue(
      {
        text: 'I will write the file.',
        toolUses: [{ name: 'Write', input: { file_path: file, content: 'secret-content\n' } }],
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      { text: 'Wrote hello.txt.', usage: { input_tokens: 150, output_tokens: 10 } },
    );
    const agentd = await startAgentd({
      args: ['--metrics', 'http://127.0.0.1:0'],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_METRIC_EXPORT_INTERVAL: '200' },
      config: { agents: { coder: profile }, limits: { defaultTimeoutMs: 60_000 } },
    });
    const url = /metrics: (\S+)/.exec(agentd.stdout.join(''))?.[1] as string;
    let runId: string;
    let metricsText: string;
    try {
      const client = await NdjsonClient.connect(agentd.socket);
      const code = `return await agentd.subagent.spawn(${JSON.stringify({ agent: 'coder', instruction: 'write hello.txt', warm: false })});`;
      const result = await client.modernResult('tools/call', { name: 'execute', arguments: { code } });
      const run = (result.structuredContent as { result: { runId: string; state: string } }).result;
      expect(run.state).toBe('succeeded');
      runId = run.runId;
      expect(readFileSync(file, 'utf8')).toBe('secret-content\n');
      client.end();
      metricsText = await (await fetch(url)).text();
    } finally {
      await agentd.stop();
    }
    const m = (series: string) => sample(metricsText, series);
    expect(m('agentd_tool_calls_total{agent="coder",kind="edit",status="completed"}')).toBe(1);
    expect(
      m('agentd_permission_decisions_total{agent="coder",outcome="allow_once",decided_by="policy"}'),
    ).toBe(1);
    expect(m('agentd_tokens_total{agent="coder",type="input"}')).toBe(250);
    expect(m('agentd_tokens_total{agent="coder",type="output"}')).toBe(30);
    expect(m('agentd_cost_usd_total{agent="coder"}')).toBeGreaterThan(0);

    const spans = receiver.spans;
    const runSpan = spans.find((s) => s.attributes['gen_ai.agent.id'] === runId);
    expect(runSpan?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 250,
      'gen_ai.usage.output_tokens': 30,
    });
    expect(runSpan?.attributes['agentd.usage.cost_usd']).toBeGreaterThan(0);
    const tools = spans.filter(
      (s) => s.parentSpanId === runSpan?.spanId && s.name.startsWith('execute_tool'),
    );
    expect(tools).toHaveLength(1);
    expect(tools[0]?.name).toBe('execute_tool Write');
    expect(tools[0]?.attributes).toMatchObject({
      'gen_ai.tool.name': 'Write',
      'agentd.tool.kind': 'edit',
      'agentd.tool.status': 'completed',
    });
    expect(tools[0]?.attributes['gen_ai.tool.call.id']).toBeTypeOf('string');
    expect(JSON.stringify(spans)).not.toContain('secret-content');
    expect(JSON.stringify(spans)).not.toContain(dir);
  });
});
