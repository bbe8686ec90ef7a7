/**
 * @agentd/transport-unix: a unix socket listener (origin `management`) and dialer for MCP servers
 * built on @agentd/server. This file is the package's public API.
 */
export { type BindUnixOptions, bindUnix } from './bind-unix.js';
export { dialUnix } from './connect-unix.js';
export type { UnixErrorCode } from './local-errors.js';
export { isNamedPipePath } from './named-pipe.js';
export { type ServeUnixOptions, serveUnix, type UnixServer } from './serve-unix.js';
