/**
 * @agentd/lifecycle: MCP protocol eras and versions; answers initialize, server/discover and ping
 * and checks modern per-request `_meta`. This file is the package's public API; the rules of the
 * extensions are behind subpaths of their own: `@agentd/lifecycle/apps`, `/skills` and `/tasks`.
 */
export { classifyRequest, type ModernMeta, type RequestClass } from './classify-request.js';
export { ErrorCode } from './error-codes.js';
export {
  clientExtension,
  isExtensionId,
} from './extensions.js';
export { /** @public */ decodeHeaderValue } from './header-value.js';
export { type HostPolicy, hostPolicy, isAllowedHost, isAllowedOrigin } from './host-origin.js';
export {
  classifyHttpPost,
  contentTypeRefusal,
  type HeaderReader,
  postHeadersRefusal,
  streamAcceptRefusal,
} from './http-post-route.js';
export { insufficientScope, requiredScopesOf } from './insufficient-scope.js';
export {
  type LifecycleOptions,
  resolveLifecycle,
} from './lifecycle-options.js';
export { lifecycleResponse } from './lifecycle-response.js';
export { MetaKey } from './meta-keys.js';
export { listenFinalResult, modernResult } from './modern-result.js';
export { checkParamHeaders, type ParamHeader, paramHeadersOf } from './param-headers.js';
export type { Implementation, ServerCapabilities } from './protocol-types.js';
export { Refusal, type RefusalReason, refuse } from './refusals.js';
export { type Era, eraOfVersion, LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from './versions.js';
