/**
 * @agentd/transport-unix: a unix socket listener (origin `management`) and dialer for MCP servers
 * built on @agentd/server. This file is the package's public API.
 */
export { /** @public */ type BindUnixOptions, bindUnix } from './bind-unix.js';
export { dialUnix } from './connect-unix.js';
export type { /** @public */ UnixErrorCode } from './local-errors.js';
export { isNamedPipePath } from './named-pipe.js';
export {
  /** @public */ type ServeUnixOptions,
  serveUnix,
  /** @public */ type UnixServer,
} from './serve-unix.js';
