/**
 * The one check of a request's era and per-request `_meta`: every transport and the server core
 * use it, and a transport that already classified a request hands its result to the core (the
 * envelope is validated once per request).
 */
import {
  isJsonObject,
  isLogLevel,
  isRequestId,
  type JsonObject,
  type JsonRpcRequest,
  type LogLevel,
} from '@agentd/rpc-frame';
import { type LifecycleOptions, resolveLifecycle } from './lifecycle-options.js';
import { MetaKey } from './meta-keys.js';
import { type Refusal, refuse } from './refusals.js';
import { REMOVED_IN_MODERN, requestEra } from './request-era.js';
import { eraOfVersion } from './versions.js';

/** The client facts a modern request carries in `params._meta`, checked (absent fields are undefined). */
export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject | undefined;
  logLevel?: LogLevel | undefined;
  progressToken?: string | number | undefined;
}

/** How a request is served: legacy (session state applies), or modern with its checked `_meta`. */
export type RequestClass =
  | { readonly era: 'legacy'; readonly meta?: undefined }
  | { readonly era: 'modern'; readonly meta: ModernMeta };

/**
 * Whether a classification is the Refusal that answers the request. Every request passes here, so
 * it reads the discriminant (a RequestClass always has `era`) instead of a brand-aware instanceof.
 */
export function isRefused(classified: RequestClass | Refusal): classified is Refusal {
  return (classified as { era?: unknown }).era === undefined;
}

/** Shared by every legacy request: classifying one allocates nothing. */
const LEGACY: RequestClass = Object.freeze({ era: 'legacy' });

/**
 * The era a request is served in and, for a modern one, its `_meta`; or the Refusal that answers
 * it, in this order: a legacy `initialize` on a server without legacy versions and methods removed
 * in 2026-07-28 (-32601), `_meta` shape errors (-32602, a bad logLevel included), then a version
 * this server does not serve statelessly (-32022 with `data: {supported, requested}`).
 */
export function classifyRequest(
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  options: LifecycleOptions | undefined,
  /** The transport serves it as modern whatever its `_meta` (HTTP: a modern `MCP-Protocol-Version` header). */
  asModern: true,
): Extract<RequestClass, { era: 'modern' }> | Refusal;
export function classifyRequest(
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  options?: LifecycleOptions,
): RequestClass | Refusal;
export function classifyRequest(
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  options?: LifecycleOptions,
  asModern = false,
): RequestClass | Refusal {
  const resolved = resolveLifecycle(options);
  // Served as modern already (the transport decided the era): only `initialize` needs a second look.
  if ((!asModern || request.method === 'initialize') && requestEra(request) === 'legacy') {
    // A server that speaks no legacy version serves everything as modern.
    if (resolved.speaksLegacy && !asModern) return LEGACY;
    if (request.method === 'initialize') return refuse.initializeNotServed(resolved.supported);
  }
  if (REMOVED_IN_MODERN.has(request.method)) return refuse.removedInModern(request.method);
  const meta = request.params?._meta;
  if (!isJsonObject(meta)) return refuse.missingMeta();
  const protocolVersion = meta[MetaKey.protocolVersion];
  if (typeof protocolVersion !== 'string') return refuse.missingProtocolVersion();
  const clientCapabilities = meta[MetaKey.clientCapabilities];
  if (!isJsonObject(clientCapabilities)) return refuse.missingClientCapabilities();
  const clientInfo = meta[MetaKey.clientInfo];
  if (clientInfo !== undefined && !isJsonObject(clientInfo)) return refuse.badClientInfo();
  const logLevel = meta[MetaKey.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) return refuse.badLogLevel();
  const progressToken = meta.progressToken;
  if (progressToken !== undefined && !isRequestId(progressToken)) return refuse.badProgressToken();
  // One shape for every request (absent fields undefined): its readers stay monomorphic.
  const out: ModernMeta = { protocolVersion, clientCapabilities, clientInfo, logLevel, progressToken };
  if (eraOfVersion(protocolVersion) !== 'modern' || !resolved.supported.includes(protocolVersion)) {
    return refuse.unsupportedVersion(resolved.supported, protocolVersion);
  }
  return { era: 'modern', meta: out };
}
