/**
 * The W3C trace context of the current span as environment variables (TRACEPARENT, TRACESTATE,
 * BAGGAGE), for a spawned agent that traces to join the trace. Empty without an SDK.
 */
import { context, propagation } from '@opentelemetry/api';

export function traceEnv(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(carrier)) env[key.toUpperCase()] = value;
  return env;
}
