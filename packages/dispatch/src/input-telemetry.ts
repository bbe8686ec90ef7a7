/**
 * Modern client input as OpenTelemetry spans: each request an `input_required` round puts to the
 * client (`elicitation/create`, `sampling/createMessage`, `roots/list`) is a CLIENT child span of
 * the request span, ended when the round's result goes out (its answer arrives on a later
 * request). Legacy asks go through `sendRequest`, which the server core traces itself.
 */
import { openTelemetry } from '@agentd/server';
import type { InputRequest } from './input-session.js';

export function traceInputRequests(pending: ReadonlyMap<string, InputRequest>): void {
  const api = openTelemetry();
  if (api === undefined) return;
  const { context, trace, SpanKind } = api;
  const tracer = trace.getTracer('@agentd/dispatch');
  const parent = context.active();
  // No SDK, or the request is not sampled: nothing to record.
  if (trace.getSpan(parent)?.isRecording() !== true) return;
  for (const [key, request] of pending) {
    const span = tracer.startSpan(request.method, { kind: SpanKind.CLIENT }, parent);
    span.setAttributes({ 'mcp.method.name': request.method, 'mcp.input.key': key });
    span.end();
  }
}
