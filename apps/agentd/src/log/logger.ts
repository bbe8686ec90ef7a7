/** agentd's Logger: structured JSON lines on stderr, mirrored into the event ring. */
import { type LogFields, type Logger, type LogLevel, logLevelEnabled } from '@agentd/rpc-frame';
import type { EventRing } from './event-ring.js';

export interface LogSink {
  write(line: string): unknown;
}

export class JsonLineLogger implements Logger {
  #level: LogLevel;
  #sink: LogSink;
  #ring: EventRing | undefined;
  #fields: LogFields;

  constructor(options: { level: LogLevel; sink?: LogSink; ring?: EventRing; fields?: LogFields }) {
    this.#level = options.level;
    this.#sink = options.sink ?? process.stderr;
    this.#ring = options.ring;
    this.#fields = options.fields ?? {};
  }

  /** The threshold is hot-reloadable (`logLevel` in the config file). */
  setLevel(level: LogLevel): void {
    this.#level = level;
  }

  setRing(ring: EventRing): void {
    this.#ring = ring;
  }

  debug(msg: string, fields?: LogFields): void {
    this.#write('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.#write('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.#write('warning', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.#write('error', msg, fields);
  }

  #write(level: LogLevel, msg: string, fields: LogFields = {}): void {
    if (!logLevelEnabled(level, this.#level)) return;
    const event = { time: new Date().toISOString(), level, msg, ...this.#fields, ...fields };
    let line: string;
    try {
      line = JSON.stringify(event);
    } catch {
      line = JSON.stringify({ time: event.time, level, msg, note: 'fields not serialisable' });
    }
    this.#sink.write(`${line}\n`);
    this.#ring?.append(JSON.parse(line));
  }
}
