/**
 * One run as an OpenTelemetry span, by the GenAI conventions (`invoke_agent {agent}`), under the
 * request that spawned it. The child starts inside it, so its TRACEPARENT names the run's span.
 */
import { context, isSpanContextValid, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('@agentd/agentd');

/** Names only: a span is exported off the machine, so it never carries the handle nor any content. */
interface RunFacts {
  readonly runId: string;
  readonly agent: string;
}

/**
 * Runs `start` inside the run's span and returns the function that ends it with the run's
 * terminal state; without an SDK it runs `start` as is and returns undefined.
 */
export function startRunSpan(run: RunFacts, start: () => void): ((state: string) => void) | undefined {
  const parent = context.active();
  const span = tracer.startSpan(`invoke_agent ${run.agent}`, { kind: SpanKind.INTERNAL }, parent);
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) {
    start();
    return undefined;
  }
  span.setAttributes({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': run.agent,
    'gen_ai.agent.id': run.runId,
  });
  context.with(trace.setSpan(parent, span), start);
  return (state) => {
    span.setAttribute('agentd.run.state', state);
    if (state !== 'succeeded') {
      span.setAttribute('error.type', state);
      span.setStatus({ code: SpanStatusCode.ERROR, message: state });
    }
    span.end();
  };
}
