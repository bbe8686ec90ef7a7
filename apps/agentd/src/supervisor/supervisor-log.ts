/** The supervisor's log: entries go to the daemon's logger and to the supervisor's `log` listeners. */
import type { Logger, LogLevel } from '@agentd/rpc-frame';
import { logAt } from '../log/log-level.js';
import type { LogEntry } from './types.js';

export class SupervisorLog {
  constructor(
    private readonly logger: Logger | undefined,
    /** Emits an entry on the supervisor's `log` event. */
    private readonly emit: (entry: LogEntry) => void,
  ) {}

  log(level: LogLevel, msg: string, fields: Record<string, unknown>): void {
    const entry: LogEntry = { ...fields, level, msg, component: 'supervisor' };
    try {
      if (this.logger !== undefined) logAt(this.logger, level, msg, { component: 'supervisor', ...fields });
    } catch {
      // A broken logger must not break supervision.
    }
    this.emit(entry);
  }

  listenerFailed(event: string, error: unknown): void {
    const msg = 'supervisor listener threw';
    const entry: LogEntry = { level: 'error', msg, event, error: String(error) };
    try {
      this.logger?.error(msg, { component: 'supervisor', event, error: String(error) });
    } catch {
      // ignored: see log()
    }
    // Not re-emitted on 'log' when the failing listener is a log listener (it would loop).
    if (event !== 'log') this.emit(entry);
  }
}
