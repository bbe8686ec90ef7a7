/** MCP log levels (RFC 5424 severities), least to most severe. */

export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

export const LOGGING_LEVELS: readonly LoggingLevel[] = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOGGING_LEVELS as readonly string[]).includes(value);
}

/** True when a message at `level` should reach a client that asked for `threshold` and above. */
export function isLevelEnabled(level: LoggingLevel, threshold: LoggingLevel | undefined): boolean {
  if (threshold === undefined) return false;
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);
}
