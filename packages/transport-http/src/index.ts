/**
 * @agentd/transport-http: Streamable HTTP for MCP, legacy sessions and the stateless 2026-07-28
 * era on one endpoint. This file is the package's public API.
 */
export type { Authenticator, BearerToken, Principal } from './bearer-auth.js';
export { createAuthenticator } from './bearer-auth.js';
export type { CoreConnectionPort, CorePort, HandleOptions, HttpPeer, HttpPushWriter } from './core-port.js';
export { decodeHeaderValue } from './header-value.js';
export { isAllowedHost, isAllowedOrigin, isLoopbackAddress } from './host-origin.js';
export {
  createHttpTransport,
  type HttpTransport,
  type ServeHttpOptions,
  serveHttp,
} from './http-transport.js';
export type { HttpTransportOptions, TlsOptions } from './options.js';
export { checkParamHeaders, type ParamHeader, paramHeadersOf } from './param-headers.js';
