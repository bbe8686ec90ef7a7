/** The server's diagnostic log: never the protocol stream (stdout stays protocol-only under stdio). */
import type { Writable } from 'node:stream';
import { type Logger, type LogLevel, logLevelEnabled } from '@agentd/rpc-frame';

export { errorFields, type Logger, silentLogger } from '@agentd/rpc-frame';

export interface StderrLoggerOptions {
  /** Lowest level written. Default `info`. */
  level?: LogLevel;
  /** Default process.stderr. */
  stream?: Writable;
}

/** One JSON object per line: `{time, level, msg, ...fields}`. */
export function stderrLogger(options: StderrLoggerOptions = {}): Logger {
  const threshold = options.level ?? 'info';
  const log = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (!logLevelEnabled(level, threshold)) return;
    const stream = options.stream ?? process.stderr;
    stream.write(`${safeStringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
  return {
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
  };
}

/** Error objects become `{name, message, stack}`; a value JSON cannot encode becomes its string form. */
function safeStringify(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record, (_key, value: unknown) =>
      value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value,
    );
  } catch {
    return JSON.stringify({ time: record.time, level: record.level, msg: String(record.msg) });
  }
}
