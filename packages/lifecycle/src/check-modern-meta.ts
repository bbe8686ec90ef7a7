/** Validation of a modern request's per-request `_meta` envelope, and the era rules before routing. */
import { isJsonObject, isRequestId, type JsonObject, type JsonRpcRequest } from '@agentd/rpc-frame';
import { type LifecycleOptions, resolveLifecycle } from './lifecycle-options.js';
import { isLoggingLevel, type LoggingLevel } from './logging-level.js';
import { MetaKey } from './meta-keys.js';
import { type Refusal, refuse } from './refusals.js';
import { REMOVED_IN_MODERN, requestEra } from './request-era.js';
import { eraOfVersion } from './versions.js';

/** The client facts a modern request carries in `params._meta`. */
export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  logLevel?: LoggingLevel;
  progressToken?: string | number;
}

/** -32602 for a missing or malformed `_meta` field (a bad logLevel included); version support is not judged here. */
function metaShapeRefusal(request: Pick<JsonRpcRequest, 'params'>): Refusal | undefined {
  const meta = request.params?._meta;
  if (!isJsonObject(meta)) return refuse.missingMeta();
  if (typeof meta[MetaKey.protocolVersion] !== 'string') return refuse.missingProtocolVersion();
  if (!isJsonObject(meta[MetaKey.clientCapabilities])) return refuse.missingClientCapabilities();
  const clientInfo = meta[MetaKey.clientInfo];
  if (clientInfo !== undefined && !isJsonObject(clientInfo)) return refuse.badClientInfo();
  const logLevel = meta[MetaKey.logLevel];
  if (logLevel !== undefined && !isLoggingLevel(logLevel)) return refuse.badLogLevel();
  const progressToken = meta.progressToken;
  if (progressToken !== undefined && !isRequestId(progressToken)) return refuse.badProgressToken();
  return undefined;
}

/**
 * What a request served in the modern era is refused with before it is routed, in this order: a
 * legacy `initialize` on a server without legacy versions and methods removed in 2026-07-28
 * (-32601), then `_meta` shape errors (-32602). Version support (-32022) is `checkModernMeta`'s.
 */
export function modernRequestRefusal(
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  options?: LifecycleOptions,
): Refusal | undefined {
  if (request.method === 'initialize' && requestEra(request) === 'legacy') {
    return refuse.initializeNotServed(resolveLifecycle(options).supported);
  }
  if (REMOVED_IN_MODERN.has(request.method)) return refuse.removedInModern(request.method);
  return metaShapeRefusal(request);
}

/**
 * Validates a modern request's `_meta`: -32602 for missing or malformed fields (including a bad
 * logLevel), then -32022 with `data: {supported, requested}` for a version this server does not
 * serve statelessly (a legacy version string included: those are only reachable through `initialize`).
 */
export function checkModernMeta(
  request: Pick<JsonRpcRequest, 'params'>,
  options?: LifecycleOptions,
): ModernMeta {
  const refusal = metaShapeRefusal(request);
  if (refusal !== undefined) throw refusal;
  const meta = request.params?._meta as JsonObject;
  const version = meta[MetaKey.protocolVersion] as string;
  const resolved = resolveLifecycle(options);
  if (eraOfVersion(version) !== 'modern' || !resolved.supported.includes(version)) {
    throw refuse.unsupportedVersion(resolved.supported, version);
  }
  const out: ModernMeta = {
    protocolVersion: version,
    clientCapabilities: meta[MetaKey.clientCapabilities] as JsonObject,
  };
  const clientInfo = meta[MetaKey.clientInfo];
  if (clientInfo !== undefined) out.clientInfo = clientInfo as JsonObject;
  const logLevel = meta[MetaKey.logLevel];
  if (logLevel !== undefined) out.logLevel = logLevel as LoggingLevel;
  const progressToken = meta.progressToken;
  if (progressToken !== undefined) out.progressToken = progressToken as string | number;
  return out;
}
