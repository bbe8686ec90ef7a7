/** A bounded ring of structured log events with monotonically increasing sequence numbers. */
import { type LogLevel, logLevelEnabled } from '@agentd/rpc-frame';

export interface LogEvent {
  seq: number;
  time: string;
  level: LogLevel;
  msg: string;
  [field: string]: unknown;
}

export interface EventPage {
  eventsSchema: '1.0';
  oldestSeq: number;
  newestSeq: number;
  /** Events evicted from the ring since start. */
  dropped: number;
  /** Events after `after` this reader can no longer see (evicted before it read them). */
  missed: number;
  /** More matching events exist past this page: read again with after = the last seq. */
  truncated: boolean;
  events: LogEvent[];
}

const MAX_EVENTS_PER_READ = 512;

export class EventRing {
  #events: LogEvent[] = [];
  #next = 1;
  #dropped = 0;
  #capacity: number;
  #listeners = new Set<(event: LogEvent) => void>();

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  append(event: Omit<LogEvent, 'seq'>): LogEvent {
    const stored = { ...event, seq: this.#next++ } as LogEvent;
    this.#events.push(stored);
    if (this.#events.length > this.#capacity) {
      this.#events.shift();
      this.#dropped++;
    }
    for (const listener of this.#listeners) listener(stored);
    return stored;
  }

  onAppend(listener: (event: LogEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  read(options: { after?: number; level?: LogLevel; limit?: number } = {}): EventPage {
    const after = options.after ?? 0;
    const min = options.level ?? 'debug';
    const limit = Math.min(options.limit ?? MAX_EVENTS_PER_READ, MAX_EVENTS_PER_READ);
    const matching = this.#events.filter((e) => e.seq > after && logLevelEnabled(e.level, min));
    const oldestSeq = this.#events[0]?.seq ?? this.#next;
    return {
      eventsSchema: '1.0',
      oldestSeq,
      newestSeq: this.#next - 1,
      dropped: this.#dropped,
      missed: Math.max(0, oldestSeq - 1 - after),
      truncated: matching.length > limit,
      events: matching.slice(0, limit),
    };
  }
}
