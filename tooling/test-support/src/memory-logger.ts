/** A Logger that keeps records in memory, so tests can assert what was logged (and keep stderr quiet). */
import type { Logger, LogLevel } from '@agentd/rpc-frame';

interface LogRecord {
  /** The syslog name, as the default logger writes it: `warn(…)` records `warning`. */
  level: LogLevel;
  message: string;
  fields: Record<string, unknown>;
}

export function memoryLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      records.push({ level, message, fields });
    };
  return { records, debug: at('debug'), info: at('info'), warn: at('warning'), error: at('error') };
}
