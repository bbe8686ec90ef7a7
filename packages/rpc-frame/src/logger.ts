/** The one log interface every package writes its diagnostics to, and the one level vocabulary. */

/** MCP's log levels: the eight RFC 5424 syslog severities (`logging/setLevel`, `notifications/message`). */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** Least to most severe: a threshold L admits L and everything after it. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export type LogFields = Record<string, unknown>;

/**
 * Diagnostics only: never the protocol stream, and never shown to a peer. The four methods write
 * at `debug`, `info`, `warning` and `error`; a logger's threshold may be any of the eight levels.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** True when a record at `level` passes the threshold `threshold`. */
export function logLevelEnabled(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/** Discards everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The error fields of a log record. */
export function errorFields(thrown: unknown): LogFields {
  return { error: thrown instanceof Error ? thrown : String(thrown) };
}
