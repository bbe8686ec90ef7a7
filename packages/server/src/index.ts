/**
 * @agentd/server: the Handler seam, PeerOrigin trust domains, the shared engine (ServerCore) and
 * the NDJSON connection loop for byte streams and stdio. This file is the package's public API.
 */
export type {
  CoreConnection,
  /** @public */ HandleOptions,
  ServerCore,
  ServerCoreOptions,
} from './core-types.js';
export type {
  Era,
  Handler,
  Implementation,
  Peer,
  PeerAuth,
  PeerOrigin,
  RequestContext,
  ServerCapabilities,
} from './handler.js';
export {
  type Logger,
  silentLogger,
  stderrLogger,
} from './logger.js';
export { openTelemetry } from './open-telemetry.js';
export {
  type ServeConnectionOptions,
  serveConnection,
} from './serve-connection.js';
export {
  type ListenerServer,
  type ServeListenerOptions,
  serveListener,
} from './serve-listener.js';
export { openStdio, type ServeStdioOptions, serveStdio } from './serve-stdio.js';
export { createServerCore } from './server-core.js';
export type { TraceCarrier } from './telemetry.js';
export type { Admission, WireProfile } from './wire-profile.js';
