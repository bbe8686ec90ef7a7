import { describe, expect, it } from 'vitest';
import { telemetrySettings } from './telemetry-config.js';

describe('telemetrySettings', () => {
  it('is off without a block, with only a service name, or with both exporters none', () => {
    expect(telemetrySettings(undefined)).toBeUndefined();
    expect(telemetrySettings({ serviceName: 'svc' })).toBeUndefined();
    expect(telemetrySettings({ endpoint: 'http://c:4318', traces: 'none', metrics: 'none' })).toBeUndefined();
  });

  it('turns on with an endpoint or an otlp exporter, filling the OTel defaults', () => {
    expect(telemetrySettings({ endpoint: 'http://collector:4318/' })).toEqual({
      endpoint: 'http://collector:4318',
      protocol: 'http/protobuf',
      serviceName: 'agentd',
      traces: true,
      metrics: true,
      metricsIntervalMs: 60_000,
    });
    expect(telemetrySettings({ traces: 'otlp', metrics: 'none', protocol: 'http/json' })).toMatchObject({
      endpoint: 'http://localhost:4318',
      protocol: 'http/json',
      traces: true,
      metrics: false,
    });
  });
});
