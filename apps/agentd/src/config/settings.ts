/** The table of config keys settable from the environment (AGENTD_*) and from flags (--kebab-case). */

type SettingType = 'string' | 'int' | 'bool' | 'list';

export interface Setting {
  /** JSON pointer segments of the config key. */
  readonly key: readonly string[];
  readonly env: string;
  readonly flag: string;
  readonly type: SettingType;
}

const s = (key: string, env: string, flag: string, type: SettingType): Setting => ({
  key: key.split('.'),
  env,
  flag,
  type,
});

export const SETTINGS: readonly Setting[] = [
  s('serve', 'AGENTD_SERVE', '--serve', 'list'),
  s('logLevel', 'AGENTD_LOG_LEVEL', '--log-level', 'string'),
  s('exposure', 'AGENTD_EXPOSURE', '--exposure', 'string'),
  s('codeModeWallMs', 'AGENTD_CODE_MODE_WALL_MS', '--code-mode-wall-ms', 'int'),
  s('defaultAgent', 'AGENTD_DEFAULT_AGENT', '--default-agent', 'string'),
  s('drainTimeoutMs', 'AGENTD_DRAIN_TIMEOUT_MS', '--drain-timeout-ms', 'int'),
  s('eventsRing', 'AGENTD_EVENTS_RING', '--events-ring', 'int'),
  s('watch', 'AGENTD_WATCH', '--watch', 'bool'),
  s('metrics', 'AGENTD_METRICS', '--metrics', 'string'),
  s('cluster.redisUrl', 'AGENTD_REDIS_URL', '--redis-url', 'string'),
  s('cluster.instanceId', 'AGENTD_INSTANCE_ID', '--instance-id', 'string'),
  s('cluster.leaseTtlMs', 'AGENTD_LEASE_TTL_MS', '--lease-ttl-ms', 'int'),
  // OpenTelemetry: the standard variable names, so one environment configures every process.
  s('telemetry.endpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', '--otel-endpoint', 'string'),
  s('telemetry.protocol', 'OTEL_EXPORTER_OTLP_PROTOCOL', '--otel-protocol', 'string'),
  s('telemetry.serviceName', 'OTEL_SERVICE_NAME', '--otel-service-name', 'string'),
  s('telemetry.traces', 'OTEL_TRACES_EXPORTER', '--otel-traces-exporter', 'string'),
  s('telemetry.metrics', 'OTEL_METRICS_EXPORTER', '--otel-metrics-exporter', 'string'),
  s('telemetry.metricsIntervalMs', 'OTEL_METRIC_EXPORT_INTERVAL', '--otel-metric-export-interval', 'int'),
  s('stateDir', 'AGENTD_STATE_DIR', '--state-dir', 'string'),
  s('history.enabled', 'AGENTD_HISTORY', '--history', 'bool'),
  s('history.maxRuns', 'AGENTD_HISTORY_MAX_RUNS', '--history-max-runs', 'int'),
  s('history.maxAgeDays', 'AGENTD_HISTORY_MAX_AGE_DAYS', '--history-max-age-days', 'int'),
  s('history.maxBytes', 'AGENTD_HISTORY_MAX_BYTES', '--history-max-bytes', 'int'),
  s('tls.cert', 'AGENTD_TLS_CERT', '--tls-cert', 'string'),
  s('tls.key', 'AGENTD_TLS_KEY', '--tls-key', 'string'),
  s('limits.maxConcurrentRuns', 'AGENTD_MAX_CONCURRENT_RUNS', '--max-concurrent-runs', 'int'),
  s('limits.maxWarmSessions', 'AGENTD_MAX_WARM_SESSIONS', '--max-warm-sessions', 'int'),
  s('limits.maxTrackedHandles', 'AGENTD_MAX_TRACKED_HANDLES', '--max-tracked-handles', 'int'),
  s('limits.maxOutputBytes', 'AGENTD_MAX_OUTPUT_BYTES', '--max-output-bytes', 'int'),
  s('limits.defaultTimeoutMs', 'AGENTD_DEFAULT_TIMEOUT_MS', '--default-timeout-ms', 'int'),
];

/** Environment variables read outside the table (they are not plain config keys). */
export const ENV_CONFIG_FILE = 'AGENTD_CONFIG';
export const ENV_BEARER_TOKEN = 'AGENTD_BEARER_TOKEN';
export const ENV_SOCKET = 'AGENTD_SOCKET';
/** The operator CLI's bearer token for --url (read by client commands only). */
export const ENV_TOKEN = 'AGENTD_TOKEN';
