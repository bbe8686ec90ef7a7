/** Structured JSON-lines logger on stderr, mirrored into the event ring. */
import type { LogLevel } from '../config/config-schema.js';
import { type EventRing, levelRank } from './event-ring.js';

export interface LogSink {
  write(line: string): unknown;
}

export class Logger {
  #level: LogLevel;
  #sink: LogSink;
  #ring: EventRing | undefined;
  #fields: Record<string, unknown>;

  constructor(options: {
    level: LogLevel;
    sink?: LogSink;
    ring?: EventRing;
    fields?: Record<string, unknown>;
  }) {
    this.#level = options.level;
    this.#sink = options.sink ?? process.stderr;
    this.#ring = options.ring;
    this.#fields = options.fields ?? {};
  }

  get level(): LogLevel {
    return this.#level;
  }

  setLevel(level: LogLevel): void {
    this.#level = level;
  }

  setRing(ring: EventRing): void {
    this.#ring = ring;
  }

  enabled(level: LogLevel): boolean {
    return levelRank(level) >= levelRank(this.#level);
  }

  log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    if (!this.enabled(level)) return;
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

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log('error', msg, fields);
  }
}
