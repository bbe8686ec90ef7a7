/**
 * The OpenTelemetry SDK wiring: OTLP/HTTP exporters (protobuf or JSON), a W3C propagator and an
 * AsyncLocalStorage context manager, registered globally so the library packages' spans (made
 * with `@opentelemetry/api` only) are exported. Imported dynamically, only when export is on.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TelemetrySettings } from '../config/telemetry-config.js';
import { redactingExporter } from './handle-redaction.js';
import { registerRunOtelMetrics } from './run-otel-metrics.js';
import type { TelemetryHandle } from './start-telemetry.js';

export function registerOtelSdk(settings: TelemetrySettings, version: string): TelemetryHandle {
  const resource = resourceFromAttributes({
    'service.name': settings.serviceName,
    'service.version': version,
    'process.pid': process.pid,
  });
  const json = settings.protocol === 'http/json';
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const shutdowns: (() => Promise<void>)[] = [];
  const flushes: (() => Promise<void>)[] = [];
  if (settings.traces) {
    const url = `${settings.endpoint}/v1/traces`;
    const exporter = json ? new JsonTraceExporter({ url }) : new ProtoTraceExporter({ url });
    const provider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(redactingExporter(exporter))],
    });
    trace.setGlobalTracerProvider(provider);
    shutdowns.push(() => provider.shutdown());
    flushes.push(() => provider.forceFlush());
  }
  if (settings.metrics) {
    const url = `${settings.endpoint}/v1/metrics`;
    const exporter = json ? new JsonMetricExporter({ url }) : new ProtoMetricExporter({ url });
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: settings.metricsIntervalMs,
    });
    const provider = new MeterProvider({ resource, readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    registerRunOtelMetrics(provider.getMeter('@agentd/agentd'));
    shutdowns.push(() => provider.shutdown());
    flushes.push(() => provider.forceFlush());
  }
  return {
    flush: async () => {
      await Promise.all(flushes.map((flush) => flush()));
    },
    shutdown: async () => {
      await Promise.all(shutdowns.map((shutdown) => shutdown()));
    },
  };
}
