/**
 * OpenTelemetry metrics of runs: `gen_ai.client.token.usage` (the GenAI histogram, one record per
 * turn and token type), and per agent counters of tokens by type and of cost in USD. Set only
 * when the SDK's metrics export is on; the API's global meter is no proxy, so instruments made
 * before the SDK registered would record into nothing.
 */
import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import type { RunUsage } from '../supervisor/run-event.js';

export interface RunOtelMetrics {
  /** Tokens and cost the agent added (a delta); `turn` records the turn's tokens in the histogram. */
  add(agent: string, delta: RunUsage): void;
  turn(agent: string, tokens: { input: number; output: number }): void;
}

let current: RunOtelMetrics | undefined;

/** The run metrics when metrics export is on. */
export function runOtelMetrics(): RunOtelMetrics | undefined {
  return current;
}

export function registerRunOtelMetrics(meter: Meter): void {
  const tokenUsage: Histogram = meter.createHistogram('gen_ai.client.token.usage', {
    description: 'Tokens an agent used per turn, by gen_ai.token.type (input, output).',
    unit: '{token}',
    advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576] },
  });
  const tokens: Counter = meter.createCounter('agentd.run.tokens', {
    description: 'Tokens agents used, by agent and type (input, output, cache_read, cache_write).',
    unit: '{token}',
  });
  const cost: Counter = meter.createCounter('agentd.run.cost', {
    description: 'Cost agents reported, by agent.',
    unit: 'USD',
  });
  current = {
    add(agent, delta) {
      const types: [string, number][] = [
        ['input', delta.inputTokens],
        ['output', delta.outputTokens],
        ['cache_read', delta.cacheReadTokens],
        ['cache_write', delta.cacheWriteTokens],
      ];
      for (const [type, value] of types)
        if (value > 0) tokens.add(value, { 'gen_ai.agent.name': agent, 'gen_ai.token.type': type });
      if ((delta.costUsd ?? 0) > 0) cost.add(delta.costUsd ?? 0, { 'gen_ai.agent.name': agent });
    },
    turn(agent, turnTokens) {
      const common = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent };
      tokenUsage.record(turnTokens.input, { ...common, 'gen_ai.token.type': 'input' });
      tokenUsage.record(turnTokens.output, { ...common, 'gen_ai.token.type': 'output' });
    },
  };
}
