/**
 * One OpenTelemetry span per host call an execution makes (`execute_tool {kind}_{id}`, by the
 * GenAI conventions for tool execution). The worker's reply arrives outside the request's async
 * context, so the context is captured when `execute` is called and restored around each call.
 */
import {
  type Context,
  context,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

const tracer = trace.getTracer('@agentd/codemode');

/** The caller's context (its request span), kept for the execution's host calls. */
export function captureTraceContext(): Context {
  return context.active();
}

/** Runs one host call under a child span of `parent`; with no SDK registered it is `call()` itself. */
export function traceHostCall<T>(
  parent: Context,
  kind: string,
  id: string,
  call: () => Promise<T>,
): Promise<T> {
  const tool = `${kind}_${id}`;
  const span = tracer.startSpan(`execute_tool ${tool}`, { kind: SpanKind.INTERNAL }, parent);
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return call();
  if (span.isRecording()) {
    span.setAttributes({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool });
  }
  return context.with(trace.setSpan(parent, span), call).then(
    (value) => {
      span.end();
      return value;
    },
    (thrown: unknown) => {
      const code = (thrown as { code?: unknown } | null)?.code;
      span.setAttribute(
        'error.type',
        typeof code === 'string' || typeof code === 'number' ? String(code) : '_OTHER',
      );
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: thrown instanceof Error ? thrown.message : String(thrown),
      });
      span.end();
      throw thrown;
    },
  );
}
