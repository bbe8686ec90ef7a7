/**
 * @agentd/server: the Handler seam, PeerOrigin trust domains, the shared engine (ServerCore) and
 * the NDJSON connection loop for byte streams and stdio. This file is the package's public API.
 */
export type {
  CoreConnection,
  HandleOptions,
  LegacySession,
  ServerCore,
  ServerCoreOptions,
} from './core-types.js';
export type {
  Era,
  Handler,
  Implementation,
  LoggingLevel,
  Peer,
  PeerAuth,
  PeerOrigin,
  RequestContext,
  ServerCapabilities,
} from './handler.js';
export { DEFAULT_MAX_BUFFERED_INPUT_BYTES, InputBudget } from './input-budget.js';
export type { ServerErrorCode } from './local-errors.js';
export {
  type Logger,
  type LogLevel,
  type StderrLoggerOptions,
  silentLogger,
  stderrLogger,
} from './logger.js';
export { redirectConsoleToStderr } from './redirect-console.js';
export {
  type ConnectionHandle,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_WRITE_TIMEOUT_MS,
  type ServeConnectionOptions,
  type StreamEnds,
  serveConnection,
  serveStreams,
} from './serve-connection.js';
export {
  DEFAULT_CLOSE_DEADLINE_MS,
  DEFAULT_MAX_CONNECTIONS,
  type ListenerServer,
  type ListenerSource,
  type ServeListenerOptions,
  serveListener,
} from './serve-listener.js';
export { openStdio, type ServeStdioOptions, serveStdio } from './serve-stdio.js';
export {
  createServerCore,
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_SUBSCRIPTIONS,
} from './server-core.js';
export { MCP_DURATION_BUCKETS, type TraceCarrier } from './telemetry.js';
