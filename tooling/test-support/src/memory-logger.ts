/** A Logger that keeps records in memory, so tests can assert what was logged (and keep stderr quiet). */
import type { Logger } from '@agentd/rpc-frame';

interface LogRecord {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

export function memoryLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      records.push({ level, message, fields });
    };
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
