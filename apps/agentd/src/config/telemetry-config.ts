/** The `telemetry` block: OpenTelemetry export over OTLP/HTTP, settable by the standard OTEL_* variables. */
import type { JsonObject } from '@agentd/rpc-frame';

type OtlpProtocol = 'http/protobuf' | 'http/json';
type SignalExporter = 'otlp' | 'none';

/** `telemetry` as written (every key optional); absent when nothing is configured. */
export interface TelemetryConfig {
  /** OTLP/HTTP base URL; `/v1/traces` and `/v1/metrics` are appended. Default http://localhost:4318. */
  endpoint?: string;
  protocol?: OtlpProtocol;
  serviceName?: string;
  traces?: SignalExporter;
  metrics?: SignalExporter;
  metricsIntervalMs?: number;
}

/** Resolved: what the exporter wiring needs, every default filled. */
export interface TelemetrySettings {
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  readonly serviceName: string;
  readonly traces: boolean;
  readonly metrics: boolean;
  readonly metricsIntervalMs: number;
}

const TELEMETRY_DEFAULTS = {
  endpoint: 'http://localhost:4318',
  protocol: 'http/protobuf',
  serviceName: 'agentd',
  metricsIntervalMs: 60_000,
} as const satisfies Partial<TelemetrySettings>;

/**
 * Export is on when an endpoint is set or a signal's exporter is `otlp`; a block with only a
 * service name (OTEL_SERVICE_NAME set for other processes) loads nothing.
 */
export function telemetrySettings(config: TelemetryConfig | undefined): TelemetrySettings | undefined {
  if (config === undefined) return undefined;
  const asked = config.endpoint !== undefined || config.traces === 'otlp' || config.metrics === 'otlp';
  const traces = (config.traces ?? 'otlp') === 'otlp';
  const metrics = (config.metrics ?? 'otlp') === 'otlp';
  if (!asked || (!traces && !metrics)) return undefined;
  return {
    endpoint: (config.endpoint ?? TELEMETRY_DEFAULTS.endpoint).replace(/\/+$/, ''),
    protocol: config.protocol ?? TELEMETRY_DEFAULTS.protocol,
    serviceName: config.serviceName ?? TELEMETRY_DEFAULTS.serviceName,
    traces,
    metrics,
    metricsIntervalMs: config.metricsIntervalMs ?? TELEMETRY_DEFAULTS.metricsIntervalMs,
  };
}

export const TELEMETRY_SCHEMA: JsonObject = {
  type: 'object',
  additionalProperties: false,
  description:
    'Export OpenTelemetry traces and metrics over OTLP/HTTP (restart required). Each key is also read from its standard OTEL_* variable; export is on once an endpoint is set or an exporter is otlp.',
  properties: {
    endpoint: {
      type: 'string',
      pattern: '^https?://.+',
      description:
        "OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT), e.g. 'http://127.0.0.1:4318'; /v1/traces and /v1/metrics are appended.",
    },
    protocol: {
      enum: ['http/protobuf', 'http/json'],
      description: "OTLP encoding (OTEL_EXPORTER_OTLP_PROTOCOL, default 'http/protobuf').",
    },
    serviceName: {
      type: 'string',
      minLength: 1,
      description: "The resource's service.name (OTEL_SERVICE_NAME, default 'agentd').",
    },
    traces: {
      enum: ['otlp', 'none'],
      description: "Span exporter (OTEL_TRACES_EXPORTER, default 'otlp' once export is on).",
    },
    metrics: {
      enum: ['otlp', 'none'],
      description: "Metric exporter (OTEL_METRICS_EXPORTER, default 'otlp' once export is on).",
    },
    metricsIntervalMs: {
      type: 'integer',
      minimum: 100,
      description: 'Milliseconds between metric exports (OTEL_METRIC_EXPORT_INTERVAL, default 60000).',
    },
  },
};
