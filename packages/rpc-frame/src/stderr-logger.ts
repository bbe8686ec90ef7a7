/** The default diagnostic log of every package: one JSON line per record, on stderr. */
import { type LogFields, type Logger, type LogLevel, logLevelEnabled } from './logger.js';

export interface StderrLoggerOptions {
  /** Lowest level written; any of the eight. Default `info`. */
  level?: LogLevel;
  /** Where lines go (each ends in a newline), e.g. a Node `Writable`. Default `console.error`. */
  stream?: { write(line: string): unknown };
}

/**
 * One JSON object per line: `{time, level, msg, ...fields}`, `level` being the syslog name
 * (`warn` writes `"warning"`). `console.error` is stderr on Node, Bun and Deno and the log on
 * workerd, so the one implementation serves every runtime and never touches stdout.
 */
export function stderrLogger(options: StderrLoggerOptions = {}): Logger {
  const threshold = options.level ?? 'info';
  const stream = options.stream;
  // console.error adds the newline itself; a single string argument is printed as is.
  const write =
    stream === undefined
      ? (line: string) => console.error(line)
      : (line: string) => stream.write(`${line}\n`);
  const log = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (!logLevelEnabled(level, threshold)) return;
    write(safeStringify({ time: new Date().toISOString(), level, msg, ...fields }));
  };
  return {
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warning', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
  };
}

/** Error objects become `{name, message, stack}`; a record JSON cannot encode keeps its time, level and text. */
function safeStringify(record: LogFields): string {
  try {
    return JSON.stringify(record, (_key, value: unknown) =>
      value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value,
    );
  } catch {
    return JSON.stringify({ time: record.time, level: record.level, msg: String(record.msg) });
  }
}
