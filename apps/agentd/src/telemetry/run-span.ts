/**
 * One run as an OpenTelemetry span, by the GenAI conventions (`invoke_agent {agent}`), under the
 * request that spawned it. The child starts inside it, so its TRACEPARENT names the run's span.
 * The run's events add a child span per tool call, `gen_ai.usage.*` on the run's span, and the
 * token and cost metrics (run-otel-metrics.ts).
 */
import { context, isSpanContextValid, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RunUsage } from '../supervisor/run-event.js';
import type { AgentEvent } from '../supervisor/types.js';
import { readTelemetryEvent, usageDelta } from './run-event-reader.js';
import { type RunOtelMetrics, runOtelMetrics } from './run-otel-metrics.js';
import { ToolCallSpans } from './tool-call-spans.js';

const tracer = trace.getTracer('@agentd/agentd');

/** Names only: a span is exported off the machine, so it never carries the handle nor any content. */
interface RunFacts {
  readonly runId: string;
  readonly agent: string;
}

/** What the supervisor feeds a run's telemetry: its events, then its terminal state. */
export interface RunTelemetry {
  record(event: AgentEvent): void;
  end(state: string): void;
}

/**
 * Runs `start` inside the run's span and returns the run's telemetry; without an SDK (no traces,
 * no metrics) it runs `start` as is and returns undefined.
 */
export function startRunSpan(run: RunFacts, start: () => void): RunTelemetry | undefined {
  const parent = context.active();
  const span = tracer.startSpan(`invoke_agent ${run.agent}`, { kind: SpanKind.INTERNAL }, parent);
  const metrics = runOtelMetrics();
  const traced = span.isRecording() || isSpanContextValid(span.spanContext());
  if (!traced && metrics === undefined) {
    start();
    return undefined;
  }
  span.setAttributes({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': run.agent,
    'gen_ai.agent.id': run.runId,
  });
  context.with(trace.setSpan(parent, span), start);
  return new RunSpanTelemetry(run.agent, span, metrics);
}

class RunSpanTelemetry implements RunTelemetry {
  readonly #agent: string;
  readonly #span: Span;
  readonly #metrics: RunOtelMetrics | undefined;
  readonly #tools: ToolCallSpans;
  #usage: RunUsage | undefined;
  /** The totals when the last turn ended: the next turn's tokens are what came after. */
  #turnStart: RunUsage | undefined;
  #ended = false;

  constructor(agent: string, span: Span, metrics: RunOtelMetrics | undefined) {
    this.#agent = agent;
    this.#span = span;
    this.#metrics = metrics;
    this.#tools = new ToolCallSpans(span);
  }

  record(raw: AgentEvent): void {
    if (this.#ended) return;
    const event = readTelemetryEvent(raw);
    if (event?.type === 'tool_call') this.#tools.see(event.toolCall);
    else if (event?.type === 'usage') this.#onUsage(event.usage);
    else if (event?.type === 'turn_end') this.#turnEnded();
  }

  end(state: string): void {
    if (this.#ended) return;
    this.#turnEnded();
    this.#ended = true;
    this.#tools.endAll();
    this.#span.setAttribute('agentd.run.state', state);
    if (state !== 'succeeded') {
      this.#span.setAttribute('error.type', state);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: state });
    }
    this.#span.end();
  }

  #onUsage(usage: RunUsage): void {
    this.#metrics?.add(this.#agent, usageDelta(this.#usage, usage));
    this.#usage = usage;
    this.#span.setAttributes({
      'gen_ai.usage.input_tokens': usage.inputTokens,
      'gen_ai.usage.output_tokens': usage.outputTokens,
      'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
      'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens,
      ...(usage.costUsd === undefined ? {} : { 'agentd.usage.cost_usd': usage.costUsd }),
    });
  }

  #turnEnded(): void {
    this.#tools.turnEnded();
    if (this.#usage === undefined || this.#usage === this.#turnStart) return;
    const turn = usageDelta(this.#turnStart, this.#usage);
    this.#turnStart = this.#usage;
    this.#metrics?.turn(this.#agent, { input: turn.inputTokens, output: turn.outputTokens });
  }
}
