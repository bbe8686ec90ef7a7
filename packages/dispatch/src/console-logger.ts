/** Until the transport rewrite lands: the one default logger (rpc-frame's `stderrLogger`) under its old internal name. */
import { type Logger, stderrLogger } from '@agentd/rpc-frame';

export const consoleLogger: Logger = stderrLogger();
