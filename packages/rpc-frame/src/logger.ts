/** The one log interface every package writes its diagnostics to, and its levels. */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Lowest first: a logger at level L writes L and everything after it. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export type LogFields = Record<string, unknown>;

/** Diagnostics only: never the protocol stream, and never shown to a peer. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** True when a logger whose threshold is `threshold` writes a record at `level`. */
export function logLevelEnabled(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/** Discards everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The error fields of a log record. */
export function errorFields(thrown: unknown): LogFields {
  return { error: thrown instanceof Error ? thrown : String(thrown) };
}
