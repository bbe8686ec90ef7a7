/** A Logger that keeps what it is told, for tests that check what the store reported. */
import type { LogFields, Logger } from '@agentd/rpc-frame';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: LogFields;
}

export function captureLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (msg: string, fields: LogFields = {}): void => {
      lines.push({ level, msg, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
