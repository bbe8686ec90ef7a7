/** The default diagnostic log: warnings and errors through `console` (stderr on Node, the log on Workers). */
import type { Logger } from '@agentd/rpc-frame';

/** Drops debug and info; the prefix names the source, since console output is shared. */
export const consoleLogger: Logger = {
  debug() {},
  info() {},
  warn: (message, fields) => console.warn(`[agentd/dispatch] ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[agentd/dispatch] ${message}`, fields ?? ''),
};
