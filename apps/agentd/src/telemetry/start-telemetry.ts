/** Starts OpenTelemetry export when the `telemetry` block turns it on; otherwise loads nothing. */
import { type TelemetryConfig, telemetrySettings } from '../config/telemetry-config.js';

export interface TelemetryHandle {
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  /** Exports what is left and stops the exporters. */
  shutdown(): Promise<void>;
}

export async function startTelemetry(
  config: TelemetryConfig | undefined,
  version: string,
): Promise<TelemetryHandle | undefined> {
  const settings = telemetrySettings(config);
  if (settings === undefined) return undefined;
  // Dynamic: without telemetry the SDK and exporters are never loaded (cold start unchanged).
  const { registerOtelSdk } = await import('./otel-sdk.js');
  return registerOtelSdk(settings, version);
}
