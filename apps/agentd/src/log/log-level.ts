/** The log level names agentd accepts from users and agents: MCP's eight, and `warn` for `warning`. */
import { isLogLevel, LOG_LEVELS, type LogFields, type Logger, type LogLevel } from '@agentd/rpc-frame';

/** Every accepted spelling, the canonical eight first; `warn` keeps config files and agents written for it working. */
export const LOG_LEVEL_SPELLINGS: readonly string[] = [...LOG_LEVELS, 'warn'];

/** The level a user or agent named, or undefined when it names none. */
export function parseLogLevel(value: unknown): LogLevel | undefined {
  if (value === 'warn') return 'warning';
  return isLogLevel(value) ? value : undefined;
}

const METHOD_OF: Record<LogLevel, keyof Logger> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/** Writes through the Logger method nearest `level` (a Logger has four: debug, info, warn, error). */
export function logAt(logger: Logger, level: LogLevel, msg: string, fields?: LogFields): void {
  logger[METHOD_OF[level]](msg, fields);
}
