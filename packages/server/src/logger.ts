/** The server's diagnostic log: the one default logger of every package, from rpc-frame (never stdout). */
export { errorFields, type Logger, silentLogger, stderrLogger } from '@agentd/rpc-frame';
